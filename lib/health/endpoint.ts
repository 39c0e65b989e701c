import type { DeployServicesSource } from '../deploy/instance.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { isBearerValid, jsonResponse, type Method } from '../platform/http.js'
import type { ReadServices } from '../read/services.js'
import { checkDetailedHealth, checkPublicHealth } from './checks.js'
import type { HealthConfig } from './config.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** What the health endpoint runs on: both sides of the instance and its own settings. */
export type HealthSource = { read: () => ReadServices; deploy: DeployServicesSource; config: () => HealthConfig }

/**
 * The `GET /api/health` handler: the public view for anyone (cacheable for 5 s); with `Authorization: Bearer
 * <HEALTH_TOKEN>` the detailed view of every part (never cached). A wrong token gets 401.
 */
export function createHealthEndpoint({ read, deploy, config }: HealthSource): Endpoint {
  return createEndpoint({
    methods: METHODS,
    // A broken configuration throws here, and the edge answers it 500 CONFIG_INVALID (lib/platform/errorAnswer.ts).
    errors: { endpoint: 'health', withOk: false },
    handler: async (request) => {
      const head = request.method === 'HEAD'
      const health = config()
      const services = read()
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
