import { z } from 'zod'
import { paidDeployUrl, RESOURCE_DESCRIPTION, SERVICE_NAME } from './bazaar.js'

// The origin's own x402 discovery manifest at /.well-known/x402: bare pointers to what it sells, in the 402's own
// words; each resource's 402 states its terms.

/** Where the discovery manifest is served (vercel.json rewrites it onto `/api/x402/manifest`). */
export const DISCOVERY_MANIFEST_PATH = '/.well-known/x402'

/** One thing the origin sells, as the manifest points at it: where, how, and what (no terms: the 402 states them). */
export const manifestResourceSchema = z.object({
  url: z.string().describe('The paid resource on this origin'),
  method: z.enum(['POST']).describe('How it is called'),
  description: z.string().describe('What it sells: the same words as the 402’s resource'),
})

/** The x402 discovery manifest of the origin (`GET /.well-known/x402`). */
export const discoveryManifestSchema = z
  .object({
    x402Version: z.literal(2),
    kind: z.literal('resource-server').describe('This origin sells x402-paid resources (it is not a facilitator)'),
    name: z.string(),
    description: z.string(),
    resources: z.array(manifestResourceSchema).describe('Bare pointers: each resource’s 402 states its price, asset, network and payTo'),
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
  return {
    x402Version: 2,
    kind: 'resource-server',
    name: SERVICE_NAME,
    description:
      'Live Base market data and KMS-signed B20 token deploys for AI agents; a deploy is sold per call with x402 (USDC on Base).',
    resources: [{ url: paidDeployUrl(origin), method: 'POST', description: RESOURCE_DESCRIPTION }],
    docs: `${origin}/skill.md`,
    openapi: `${origin}/openapi.json`,
    updated: new Date(updatedAt).toISOString(),
  }
}
