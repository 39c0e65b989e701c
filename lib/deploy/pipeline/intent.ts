import type { Address, Hex } from 'viem'
import { z } from 'zod'
import { checksumAddress } from '../../chain/address.js'
import { type B20Variant, STABLECOIN_DECIMALS } from '../../chain/b20Variants.js'
import { type BirthIntent, parseBirthIntent } from './birthIntent.js'
import { addressField, httpsUrlField, type IntentProblem, onChainTextField, tokenAmountField } from './intentFields.js'
import { ISO_4217_CODES } from './iso4217.js'

export type { BirthIntent, IntentProblem }

/** Longest token name accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_NAME_MAX = 64
/** Longest token symbol accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_SYMBOL_MAX = 11
/** Longest token description accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_DESCRIPTION_MAX = 500

/** The `agent_deploy` body schema: every rule of `docs/api.md` (`POST /api/b20-skill`), with the reasons agents see. */
export const agentDeploySchema = z.strictObject({
  action: z.literal('agent_deploy'),
  name: onChainTextField(DEPLOY_NAME_MAX, 'is required: a string of 1 to 64 characters').describe(
    'Token name: 1-64 characters, no leading or trailing space, no control, zero-width or bidi characters',
  ),
  symbol: z
    .string({ error: 'is required: 1 to 11 letters or digits' })
    .regex(/^[A-Za-z0-9]{1,11}$/, `must be 1 to ${DEPLOY_SYMBOL_MAX} letters (A-Z, a-z) or digits`)
    .describe('Ticker: 1-11 letters or digits'),
  variant: z.enum(['asset', 'stablecoin'], { error: 'must be "asset" or "stablecoin"' }).optional().describe('Default "asset"'),
  decimals: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .optional()
    .describe('6 to 18 for an asset (default 18); a stablecoin always has 6'),
  admin: addressField
    .optional()
    .describe('Admin and mint-role holder, lower-case or checksummed; default the signer (the service keeps no role when given)'),
  salt: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex (66 characters)')
    .optional()
    .describe('CREATE2-style salt; random when omitted; reusing one reverts TokenAlreadyExists'),
  currency: z.string().optional().describe('Stablecoin only: an ISO 4217 code of three upper-case letters; default "USD"'),
  initialSupply: tokenAmountField
    .optional()
    .describe(
      'Whole tokens minted to recipient in the creation transaction, as a decimal string ("1000000", "12.5"): more than 0, at most `decimals` digits after the point, at most 2^128-1 base units',
    )
    .meta({ examples: ['1000000'] }),
  recipient: addressField
    .optional()
    .describe('Who receives initialSupply; default admin. Required with initialSupply when admin is not given')
    .meta({ examples: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'] }),
  supplyCap: tokenAmountField
    .optional()
    .describe('The token’s cap from birth, in whole tokens, at least initialSupply; default no cap (type(uint128).max)')
    .meta({ examples: ['10000000'] }),
  fixedSupply: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe(
      'true: the cap is initialSupply and the token has no admin and no minter, ever. Needs initialSupply and recipient; excludes supplyCap and admin',
    )
    .meta({ examples: [true] }),
  description: onChainTextField(DEPLOY_DESCRIPTION_MAX, `must be a string of 1 to ${DEPLOY_DESCRIPTION_MAX} characters`)
    .optional()
    .describe('Set on chain in the token’s ERC-7572 contractURI: 1-500 characters, the same text rules as name')
    .meta({ examples: ['The points token of the Example community.'] }),
  image: httpsUrlField
    .optional()
    .describe('ERC-7572 image: an https URL (at most 512 characters, no user name or password)')
    .meta({ examples: ['https://example.com/token.png'] }),
  website: httpsUrlField
    .optional()
    .describe('ERC-7572 external_link: an https URL (at most 512 characters, no user name or password)')
    .meta({ examples: ['https://example.com'] }),
  dryRun: z.boolean({ error: 'must be true or false' }).optional().describe('true: validate and simulate only; nothing is signed'),
})

/** A validated, normalised deploy intent. */
export type DeployIntent = {
  name: string
  symbol: string
  variant: B20Variant
  decimals: number
  /** Checksummed admin; undefined means "the signer". */
  admin: Address | undefined
  /** The salt asked for; undefined means "a random one". */
  salt: Hex | undefined
  /** ISO 4217 code, stablecoins only. */
  currency: string | undefined
  /** Supply, cap and metadata at birth. */
  birth: BirthIntent
  dryRun: boolean
}

/** Result of {@link parseDeployIntent}. */
export type ParseDeployIntentReturnType = { ok: true; intent: DeployIntent } | { ok: false; details: IntentProblem[] }

/** An asset's decimals when given and valid (6-18), else the default 18: what amounts are checked against. */
const validAssetDecimals = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 6 && value <= 18 ? value : 18

const fieldOf = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : 'body')

/** Validates an `agent_deploy` body and lists every problem (field and reason); unknown fields are problems too. */
export function parseDeployIntent(body: unknown): ParseDeployIntentReturnType {
  const details: IntentProblem[] = []
  const parsed = agentDeploySchema.safeParse(body)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) details.push({ field: key, reason: 'is not a known field' })
      } else {
        details.push({ field: fieldOf(issue.path), reason: issue.path.length === 0 ? 'must be a JSON object' : issue.message })
      }
    }
  }
  // Rules that depend on the variant are checked even when other fields failed, so one answer lists everything.
  const raw = (body ?? {}) as Record<string, unknown>
  const variant: B20Variant = raw.variant === 'stablecoin' ? 'stablecoin' : 'asset'
  if (variant === 'asset') {
    if (typeof raw.decimals === 'number' && Number.isInteger(raw.decimals) && (raw.decimals < 6 || raw.decimals > 18)) {
      details.push({ field: 'decimals', reason: 'must be between 6 and 18 for an asset' })
    }
    if (raw.currency !== undefined) details.push({ field: 'currency', reason: 'applies only to variant "stablecoin"' })
  } else if (raw.currency !== undefined) {
    if (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency)) {
      details.push({ field: 'currency', reason: 'must be three upper-case letters (ISO 4217), e.g. "USD"' })
    } else if (!ISO_4217_CODES.has(raw.currency)) {
      details.push({ field: 'currency', reason: `"${raw.currency}" is not an ISO 4217 currency code` })
    }
  }
  const decimals = variant === 'stablecoin' ? STABLECOIN_DECIMALS : validAssetDecimals(raw.decimals)
  const { birth, details: birthDetails } = parseBirthIntent(raw, decimals)
  details.push(...birthDetails)
  if (details.length > 0 || !parsed.success) return { ok: false, details }

  const data = parsed.data
  return {
    ok: true,
    intent: {
      name: data.name,
      symbol: data.symbol,
      variant,
      decimals,
      admin: data.admin ? checksumAddress(data.admin) : undefined,
      salt: data.salt ? (data.salt.toLowerCase() as Hex) : undefined,
      currency: variant === 'stablecoin' ? (data.currency ?? 'USD') : undefined,
      birth,
      dryRun: data.dryRun ?? false,
    },
  }
}

/** The `receipt` body schema. */
export const receiptRequestSchema = z.strictObject({
  action: z.literal('receipt'),
  tx_hash: z
    .string({ error: 'is required: the txHash of the deploy' })
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte 0x-prefixed transaction hash')
    .describe('The txHash of the deploy answer'),
  waitSeconds: z
    .number({ error: 'must be a whole number of seconds from 0 to 25' })
    .int('must be a whole number of seconds from 0 to 25')
    .min(0, 'must be a whole number of seconds from 0 to 25')
    .max(25, 'must be a whole number of seconds from 0 to 25')
    .optional()
    .describe('Wait up to this many seconds (0-25, default 0) for the transaction to be mined before answering "pending"'),
})

/** How many of the newest records a list answers: 1-100, default 20. */
const newestLimit = (what: string) =>
  z
    .number({ error: 'must be a whole number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be a whole number from 1 to 100')
    .max(100, 'must be a whole number from 1 to 100')
    .optional()
    .describe(`How many of the newest ${what} to answer (1-100, default 20)`)

/** The `list_deploys` body schema. */
export const listDeploysRequestSchema = z.strictObject({
  action: z.literal('list_deploys'),
  limit: newestLimit('deploys'),
})

/** The `list_events` body schema. */
export const listEventsRequestSchema = z.strictObject({
  action: z.literal('list_events'),
  limit: newestLimit('events'),
})

/** The `redeliver` body schema. */
export const redeliverRequestSchema = z.strictObject({
  action: z.literal('redeliver'),
  event_id: z
    .string({ error: 'must be an event id from list_events (msg_…)' })
    .regex(/^msg_[A-Za-z0-9_-]{1,64}$/, 'must be an event id from list_events (msg_…)')
    .describe('The id of one of your events, as list_events answers it'),
})

/** Every problem of a failed parse, by field. */
function problemsOf(error: z.ZodError): IntentProblem[] {
  const details: IntentProblem[] = []
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) details.push({ field: key, reason: 'is not a known field' })
    else details.push({ field: fieldOf(issue.path), reason: issue.message })
  }
  return details
}

/** Validates a `receipt` body: `{ action: "receipt", tx_hash, waitSeconds? }`. */
export function parseReceiptRequest(
  body: unknown,
): { ok: true; txHash: Hex; waitSeconds: number } | { ok: false; details: IntentProblem[] } {
  const parsed = receiptRequestSchema.safeParse(body)
  if (parsed.success) return { ok: true, txHash: parsed.data.tx_hash.toLowerCase() as Hex, waitSeconds: parsed.data.waitSeconds ?? 0 }
  return { ok: false, details: problemsOf(parsed.error) }
}

/** Validates a `list_deploys` body: `{ action: "list_deploys", limit? }`. */
export function parseListDeploysRequest(body: unknown): { ok: true; limit: number } | { ok: false; details: IntentProblem[] } {
  const parsed = listDeploysRequestSchema.safeParse(body)
  if (parsed.success) return { ok: true, limit: parsed.data.limit ?? 20 }
  return { ok: false, details: problemsOf(parsed.error) }
}

/** Validates a `list_events` body: `{ action: "list_events", limit? }`. */
export function parseListEventsRequest(body: unknown): { ok: true; limit: number } | { ok: false; details: IntentProblem[] } {
  const parsed = listEventsRequestSchema.safeParse(body)
  if (parsed.success) return { ok: true, limit: parsed.data.limit ?? 20 }
  return { ok: false, details: problemsOf(parsed.error) }
}

/** Validates a `redeliver` body: `{ action: "redeliver", event_id }`. */
export function parseRedeliverRequest(body: unknown): { ok: true; eventId: string } | { ok: false; details: IntentProblem[] } {
  const parsed = redeliverRequestSchema.safeParse(body)
  if (parsed.success) return { ok: true, eventId: parsed.data.event_id }
  return { ok: false, details: problemsOf(parsed.error) }
}
