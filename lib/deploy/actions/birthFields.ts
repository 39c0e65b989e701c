import { checksumAddress, isValidAddress } from '../../chain/address.js'
import { parseTokenAmount } from '../../chain/tokenAmount.js'
import type { TokenMetadata } from '../../chain/tokenBirth.js'
import type { RequestProblem } from '../../platform/problems.js'
import type { BirthIntent } from '../pipeline/intent.js'

/** Result of {@link parseBirthIntent}: the birth (meaningful only when `details` is empty) and every problem found. */
export type ParseBirthIntentReturnType = { birth: BirthIntent; details: RequestProblem[] }

const given = (value: unknown) => value !== undefined

/** Reads an amount field in base units when it is a string; its problems go to `details`. */
function amountOf(raw: Record<string, unknown>, field: string, decimals: number, details: RequestProblem[]): bigint | undefined {
  const text = raw[field]
  if (typeof text !== 'string') return undefined // absent, or the schema names the wrong type
  const parsed = parseTokenAmount(text, decimals)
  if (parsed.ok) return parsed.units
  details.push({ field, reason: parsed.reason })
  return undefined
}

/**
 * The rules of the birth fields that span several of them or depend on `decimals` (the schema checks each field's
 * type and shape): amounts in base units, a recipient for any supply (never the service's own signer by default), a
 * cap no lower than the supply, and a fixed supply that names its recipient and keeps no admin or separate cap.
 */
export function parseBirthIntent(raw: Record<string, unknown>, decimals: number): ParseBirthIntentReturnType {
  const details: RequestProblem[] = []
  const initialSupply = amountOf(raw, 'initialSupply', decimals, details)
  const supplyCap = amountOf(raw, 'supplyCap', decimals, details)
  const fixedSupply = raw.fixedSupply === true
  if (given(raw.recipient) && !given(raw.initialSupply))
    details.push({ field: 'recipient', reason: 'applies only with initialSupply: it is who receives the supply' })
  if (given(raw.initialSupply) && !given(raw.recipient) && !given(raw.admin))
    details.push({
      field: 'recipient',
      reason: 'is required with initialSupply when admin is not given: the supply would land on the service’s own signer',
    })
  if (initialSupply !== undefined && supplyCap !== undefined && supplyCap < initialSupply)
    details.push({ field: 'supplyCap', reason: 'must be at least initialSupply' })
  if (fixedSupply) {
    if (!given(raw.initialSupply)) details.push({ field: 'initialSupply', reason: 'is required with fixedSupply' })
    // Without admin too, the rule above has already named the missing recipient.
    else if (!given(raw.recipient) && given(raw.admin)) details.push({ field: 'recipient', reason: 'is required with fixedSupply' })
    if (given(raw.supplyCap)) details.push({ field: 'supplyCap', reason: 'cannot be set with fixedSupply: the cap is the initial supply' })
    if (given(raw.admin))
      details.push({ field: 'admin', reason: 'cannot be set with fixedSupply: a fixed-supply token has no admin at all' })
  }
  const recipientText = typeof raw.recipient === 'string' ? raw.recipient : typeof raw.admin === 'string' ? raw.admin : undefined
  const metadata: TokenMetadata = {}
  for (const field of ['description', 'image', 'website'] as const) {
    if (typeof raw[field] === 'string') metadata[field] = raw[field]
  }
  return {
    details,
    birth: {
      initialSupply,
      recipient: recipientText !== undefined && isValidAddress(recipientText) ? checksumAddress(recipientText) : undefined,
      supplyCap: fixedSupply ? initialSupply : supplyCap,
      fixedSupply,
      metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
    },
  }
}
