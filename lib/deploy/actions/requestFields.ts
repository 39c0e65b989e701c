// The field rules the agent actions' request schemas are built from, each with the reason an agent reads.
import { z } from 'zod'
import { isValidAddress } from '../../chain/address.js'

// Control, zero-width and bidi formatting characters: refused in text that ends up on chain and in explorers.
const UNSAFE_TEXT = /[\p{Cc}\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/u

/** A 20-byte address, lower-case or checksummed, never the zero address. */
export const addressField = z
  .string()
  .refine(
    (v) => isValidAddress(v) && !/^0x0{40}$/i.test(v),
    'must be a 20-byte 0x address, lower-case or with a valid checksum, and not the zero address',
  )

/** Text that goes on chain (a name, a description): not empty, at most `max` characters, nothing invisible. */
export function onChainTextField(max: number, required: string) {
  return z
    .string({ error: required })
    .refine((v) => v.trim().length > 0, 'must not be empty')
    .refine((v) => Array.from(v).length <= max, `must be at most ${max} characters`)
    .refine((v) => v === v.trim(), 'must not start or end with white space')
    .refine((v) => !UNSAFE_TEXT.test(v), 'must not contain control, zero-width or bidi characters')
}

/** Longest image or website URL accepted. */
export const METADATA_URL_MAX = 512

/** True for an absolute https URL with a host and no user name or password in it. */
function isPlainHttpsUrl(text: string): boolean {
  if (!/^https:\/\//i.test(text) || /\s/.test(text) || UNSAFE_TEXT.test(text)) return false
  try {
    const url = new URL(text)
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === ''
  } catch {
    return false
  }
}

/** A URL a token's metadata points to: https only, no credentials, at most {@link METADATA_URL_MAX} characters. */
export const httpsUrlField = z
  .string({ error: `must be an https URL of at most ${METADATA_URL_MAX} characters` })
  .refine((v) => v.length <= METADATA_URL_MAX, `must be at most ${METADATA_URL_MAX} characters`)
  .refine(isPlainHttpsUrl, 'must be an https:// URL with a host and no user name or password')

/** An amount of whole tokens as the agent writes it; its digits are checked against the token's decimals later. */
export const tokenAmountField = z.string({ error: 'must be a string of whole tokens, like "1000000" or "12.5"' })

/** Seconds a send may wait for its block (0 to `max`): the deploy's and the token actions' `waitSeconds`. */
export function waitSecondsField(max: number) {
  const rule = `must be a whole number of seconds from 0 to ${max}`
  return z.number({ error: rule }).int(rule).min(0, rule).max(max, rule)
}
