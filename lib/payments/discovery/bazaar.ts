import { bazaarResourceServerExtension, type DiscoveryExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { z } from 'zod'
import { agentDeploySchema } from '../../deploy/actions/agentDeploy.js'
import { perInstance } from '../../platform/perInstance.js'
import { paidDeploySchema, paymentSummarySchema } from './paidDoorSchemas.js'

// How agents find the paid door without reading a README: the 402's `bazaar` extension (what an indexing facilitator
// lists after a settle: the body it takes and what it answers), built from the zod schemas the door validates with and
// the OpenAPI document declares, so it cannot drift from the door; and the words every listing of the door uses (the
// 402's resource, the bazaar, the manifest in manifest.ts).

/**
 * What the door sells, as the 402's `resource` describes it (and the manifest's endpoint): plain ASCII, under the
 * catalogs' 450 characters. A paid launch has no key, so who owns the token is part of what is sold.
 */
export const RESOURCE_DESCRIPTION =
  "One B20 token deploy on Base, signed and broadcast by the service (the body is the agent_deploy intent). No key: the payer is the token's admin and minter from birth, unless the body names an admin"

/** The service's name, as the 402's resource (x402's `serviceName`, at most 32 ASCII characters) and the manifest say it. */
export const SERVICE_NAME = 'Base control room'

/** Topics a discovery catalogue files the door under (x402's `tags`: at most 5, each at most 32 ASCII characters). */
export const SERVICE_TAGS = ['base', 'b20', 'token-deploy', 'erc20', 'usdc']

/** The paid door's path on the service's origin. */
export const PAID_DEPLOY_PATH = '/api/x402/deploy'

/** The paid door's URL on the service's public origin: the 402's resource, the manifest's pointer, a receipt's resourceUrl. */
export function paidDeployUrl(publicOrigin: string): string {
  return `${publicOrigin}${PAID_DEPLOY_PATH}`
}

/**
 * The agent_deploy body as the paid door takes it (`action` may be omitted; `admin` defaults to the payer): what the
 * OpenAPI document and the MCP tool declare too.
 */
export const paidDeployRequestSchema = agentDeploySchema.partial({ action: true }).extend({
  admin: agentDeploySchema.shape.admin.describe(
    'Admin and mint-role holder; default the payer (the payment’s from), who owns the token from birth (the signer keeps no role either way)',
  ),
})

/**
 * A zod schema as JSON Schema 2020-12 for the bazaar extension, inlined (the extension's validator refuses a `$ref` that
 * leaves it) and without `$schema` (the extension's own schema says it) or `examples` (its `info` is the example).
 * It drops the prose too, which the OpenAPI document carries, because bytes count: an x402 client echoes every
 * extension of the 402 in its PAYMENT-SIGNATURE, which the door takes up to 12 KiB.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    reused: 'inline',
    override: ({ jsonSchema }) => {
      delete jsonSchema.examples
      delete jsonSchema.description
    },
  })
  return rest
}

/** A deploy an agent could send as it is: the bazaar's example of the body. */
export const EXAMPLE_PAID_DEPLOY = {
  name: 'Example Token',
  symbol: 'EXT',
  initialSupply: '1000000',
  recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
} as const

const EXAMPLE_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const EXAMPLE_HASH = `0x${'ab'.repeat(32)}`

/** What the door answers that deploy (made-up hashes and addresses): the bazaar's example of the output. */
export const EXAMPLE_PAID_DEPLOY_ANSWER: z.infer<typeof paidDeploySchema> = {
  ok: true,
  status: 'broadcast',
  txHash: EXAMPLE_HASH,
  predictedAddress: '0xB20000000000000000000000000000000000cafe',
  explorerUrl: `https://basescan.org/tx/${EXAMPLE_HASH}`,
  token: {
    name: 'Example Token',
    symbol: 'EXT',
    variant: 'asset',
    decimals: 18,
    // No admin in the body: the payer.
    admin: EXAMPLE_ADDRESS,
    minter: EXAMPLE_ADDRESS,
    initialSupply: '1000000',
    supplyCap: null,
    recipient: EXAMPLE_ADDRESS,
    metadata: null,
  },
  signer: '0x00000000000000000000000000000000000051a4',
  chainId: 8453,
  payment: {
    payer: EXAMPLE_ADDRESS,
    transaction: `0x${'cd'.repeat(32)}`,
    amount: '1000000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    network: 'eip155:8453',
  },
}

/**
 * The paid answer's schema for the bazaar: the top of `paidDeploySchema`, with `receipt` (only with waitSeconds), a
 * pooled launch's `pool` and the payment's signed `receipt` (x402's offer-receipt) kept as objects, so that the echo stays small; the OpenAPI
 * document details both.
 */
const paidDeployOutputSchema = paidDeploySchema.omit({ receipt: true, payment: true, pool: true }).extend({
  receipt: z.looseObject({ ok: z.boolean(), status: z.string().optional() }).optional(),
  pool: z.looseObject({ poolId: z.string(), status: z.string() }).optional(),
  payment: paymentSummarySchema.extend({ receipt: z.looseObject({ format: z.string() }).optional() }),
})

/**
 * The 402's `bazaar` extension (x402's discovery extension), as `declareDiscoveryExtension` declares a JSON body and
 * the extension's own HTTP enrichment pins the method (POST), once per instance: the intent's JSON Schema from the
 * same zod schema as the OpenAPI document, an example body, and the paid answer's schema with an example.
 */
export const paidDeployDiscovery: () => { bazaar: DiscoveryExtension } = perInstance(() => {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: { ...EXAMPLE_PAID_DEPLOY },
    inputSchema: jsonSchemaOf(paidDeployRequestSchema, 'input'),
    output: { example: EXAMPLE_PAID_DEPLOY_ANSWER, schema: jsonSchemaOf(paidDeployOutputSchema, 'output') },
  })
  // What x402's HTTP middleware does for a route: the enrichment reads the method (and the path, for a route with
  // parameters, which this one is not).
  const request = { method: 'POST', path: PAID_DEPLOY_PATH, adapter: { getPath: () => PAID_DEPLOY_PATH } }
  return { bazaar: bazaarResourceServerExtension.enrichDeclaration!(declared.bazaar, request) as DiscoveryExtension }
})
