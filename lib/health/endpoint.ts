import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { type DeployServicesSource, instanceDeploySource } from '../deploy/instance.js'
import { type HealthConfig, loadHealthConfig } from '../platform/config.js'
import { createEndpoint, type Endpoint, misconfiguredResponse } from '../platform/edge.js'
import { isBearerValid, jsonResponse, type Method } from '../platform/http.js'
import { perInstance } from '../platform/perInstance.js'
import { corsHeaders, errorAnswer, jsonAnswer, notAllowedAnswer, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import { getReadServices, type ReadServices } from '../read/services.js'
import { checkDetailedHealth, checkPublicHealth } from './checks.js'
import { healthSchema } from './schema.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** Parameters of {@link createHealthEndpoint}. */
export type CreateHealthEndpointParameters = { read: () => ReadServices; deploy: DeployServicesSource; config: () => HealthConfig }

/**
 * The `GET /api/health` handler: the public view for anyone (cacheable for 5 s); with `Authorization: Bearer
 * <HEALTH_TOKEN>` the detailed view of every part (never cached). A wrong token gets 401.
 */
export function createHealthEndpoint({ read, deploy, config }: CreateHealthEndpointParameters): Endpoint {
  return createEndpoint({
    methods: METHODS,
    handler: async (request) => {
      const head = request.method === 'HEAD'
      let health: HealthConfig
      let services: ReadServices
      try {
        health = config()
        services = read()
      } catch (error) {
        return misconfiguredResponse('health', error, { head })
      }
      const authorization = request.headers.get('authorization')
      if (authorization !== null && health.healthToken !== null) {
        if (!isBearerValid(authorization, health.healthToken)) {
          return jsonResponse({
            status: 401,
            body: JSON.stringify({ error: 'The health token is wrong.', code: 'UNAUTHORIZED' }),
            headers: { 'cache-control': 'no-store', vary: 'Authorization' },
            head,
          })
        }
        const detailed = await checkDetailedHealth({ read: services, deploy: deploy.services, config: health })
        return jsonResponse({
          body: JSON.stringify(detailed),
          headers: { 'cache-control': 'no-store', vary: 'Authorization' },
          head,
        })
      }
      const view = await checkPublicHealth(services)
      return jsonResponse({
        body: JSON.stringify(view),
        headers: { 'cache-control': 'public, max-age=5, s-maxage=5', vary: 'Authorization' },
        head,
      })
    },
  })
}

/** The health endpoint over the instance's own services and `process.env`. */
export const defaultHealthEndpoint = () =>
  createHealthEndpoint({
    read: getReadServices,
    deploy: instanceDeploySource,
    config: perInstance(() => loadHealthConfig(process.env)),
  })

/** `GET /api/health`, as the OpenAPI document declares it. */
export const healthRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getHealth',
    summary:
      'Service health: { ok, version, dataAgeSeconds } for anyone (cached 5 s); every part (store, upstreams, RPC, signer, deploys) with Authorization: Bearer <HEALTH_TOKEN>',
    description:
      'For uptime monitors and dashboards: whether the configured store answers, the version and the data age. With the health token: every part, each probed at once under 3 s; never a secret.',
    security: [{}, { healthToken: [] }],
    responses: {
      '200': {
        ...jsonAnswer(healthSchema, 'The public view, or with the health token the detailed view (never cached)'),
        headers: corsHeaders,
      },
      '308': redirectAnswer,
      '401': { ...errorAnswer('Authorization names a wrong health token (UNAUTHORIZED)'), headers: corsHeaders },
      '405': notAllowedAnswer,
      '500': { ...errorAnswer('The service is misconfigured (CONFIG_INVALID)'), headers: corsHeaders },
    },
  },
  options: preflightOperation,
}
