import { z } from 'zod'
import { paidDeployUrl, RESOURCE_DESCRIPTION, SERVICE_NAME } from './bazaar.js'

// The origin's own x402 discovery manifest at /.well-known/x402: bare pointers to what it sells, in the 402's own
// words; each resource's 402 states its terms. One object serves two readers. x402scan reads `version: 1`,
// `resources` (absolute URLs) and `instructions`; nothing under node_modules/@x402 states that shape (docs/payments.md
// says where it comes from), so it is held by tests/payments/discovery.test.ts alone. The rest is this service's own
// manifest, whose pointers with their method and description are `endpoints` (`resources` is x402scan's list).

/** Where the discovery manifest is served (vercel.json rewrites it onto `/api/x402/manifest`). */
export const DISCOVERY_MANIFEST_PATH = '/.well-known/x402'

/** One thing the origin sells, as the manifest points at it: where, how, and what (no terms: the 402 states them). */
export const manifestEndpointSchema = z.object({
  url: z.string().describe('The paid resource on this origin'),
  method: z.enum(['POST']).describe('How it is called'),
  description: z.string().describe('What it sells: the same words as the 402’s resource'),
})

/** What the origin is, as the manifest says it (under the catalogs' 450 characters, like every listing's words). */
export const SERVICE_DESCRIPTION =
  'Live Base market data and KMS-signed B20 token deploys for AI agents; a deploy is sold per call with x402 (USDC on Base).'

/** How an agent calls what the manifest lists (x402scan's `instructions`). */
export const MANIFEST_INSTRUCTIONS =
  'POST the agent_deploy intent as JSON (name and symbol at least) to the deploy URL: its 402 states the price, and an x402 client pays it and sends the request again. {"action":"receipt","tx_hash"} on the same URL is free.'

/** The x402 discovery manifest of the origin (`GET /.well-known/x402`). */
export const discoveryManifestSchema = z
  .object({
    version: z.literal(1).describe('The discovery document’s version, as x402scan reads it'),
    resources: z.array(z.string()).describe('The paid resources’ URLs on this origin (x402scan’s list): each one’s 402 states its terms'),
    instructions: z.string().describe('How an agent calls them, in a sentence'),
    x402Version: z.literal(2).describe('The x402 version the resources speak'),
    kind: z.literal('resource-server').describe('This origin sells x402-paid resources (it is not a facilitator)'),
    name: z.string(),
    description: z.string(),
    endpoints: z.array(manifestEndpointSchema).describe('Bare pointers: each resource’s 402 states its price, asset, network and payTo'),
    docs: z.string().describe('The agent guide (/skill.md) on this origin'),
    openapi: z.string().describe('The OpenAPI document on this origin; the paid operation carries x-payment-info'),
    updated: z.string().describe('When this instance read the settings the manifest states (ISO 8601)'),
  })
  .describe('The x402 discovery manifest: what this origin sells over x402, as bare pointers')

/** The discovery manifest. */
export type DiscoveryManifest = z.infer<typeof discoveryManifestSchema>

/** Parameters of {@link discoveryManifestOf}. */
export type DiscoveryManifestOfParameters = {
  /** The service's public origin (the door's `publicOrigin`, never a request's Host): every pointer is on it. */
  publicOrigin: string
  /** When the manifest's settings were read (ms since the epoch). */
  updatedAt: number
}

/** The manifest of the service's public origin (pure): the paid door as a bare pointer, with the 402's own words. */
export function discoveryManifestOf({ publicOrigin: origin, updatedAt }: DiscoveryManifestOfParameters): DiscoveryManifest {
  const url = paidDeployUrl(origin)
  return {
    version: 1,
    resources: [url],
    instructions: MANIFEST_INSTRUCTIONS,
    x402Version: 2,
    kind: 'resource-server',
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    endpoints: [{ url, method: 'POST', description: RESOURCE_DESCRIPTION }],
    docs: `${origin}/skill.md`,
    openapi: `${origin}/openapi.json`,
    updated: new Date(updatedAt).toISOString(),
  }
}
