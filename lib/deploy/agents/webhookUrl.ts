import ipaddr from 'ipaddr.js'
import { accepted, type Result, refused } from '../../platform/result.js'

/** Longest webhook URL accepted. */
export const WEBHOOK_URL_MAX_LENGTH = 2048

/** A webhook URL judged: the URL as it will be called, or why it is refused. */
export type WebhookUrlVerdict = Result<{ url: string }, 'WEBHOOK_URL_REFUSED', { reason: string }>

/** Parameters of {@link checkWebhookUrl}. */
export type CheckWebhookUrlParameters = { url: string; onVercel: boolean }

/**
 * The range of an IP address that a webhook may not reach (private, loopback, link-local with cloud metadata at
 * 169.254.169.254, carrier-grade NAT, unique-local, unspecified, reserved, and the IPv4-mapped forms of all), or
 * null for a public unicast address or a name. Pure.
 */
export function refusedAddressRange(host: string): string | null {
  const literal = host.replace(/^\[|\]$/g, '')
  if (!ipaddr.isValid(literal)) return null
  let address = ipaddr.parse(literal)
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address()
  const range = address.range()
  return range === 'unicast' ? null : range
}

/** Whether a host names this machine: a loopback literal, `localhost` or a name under `.localhost`. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase()
  return name === 'localhost' || name.endsWith('.localhost') || refusedAddressRange(name) === 'loopback'
}

/**
 * Judges a webhook URL at registration and again before each attempt (pure): https, or plain http to this machine
 * only off Vercel (local use and tests); no credentials in it; no IP literal in a refused range (off Vercel a
 * loopback one is allowed). A name is judged again at connect time, after DNS.
 */
export function checkWebhookUrl({ url, onVercel }: CheckWebhookUrlParameters): WebhookUrlVerdict {
  if (url.length > WEBHOOK_URL_MAX_LENGTH)
    return refused('WEBHOOK_URL_REFUSED', { reason: `is longer than ${WEBHOOK_URL_MAX_LENGTH} characters` })
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return refused('WEBHOOK_URL_REFUSED', { reason: 'is not an absolute URL' })
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return refused('WEBHOOK_URL_REFUSED', { reason: 'must be https' })
  if (parsed.username || parsed.password) return refused('WEBHOOK_URL_REFUSED', { reason: 'must not carry a user name or password' })
  const loopback = isLoopbackHost(parsed.hostname)
  if (loopback && onVercel) return refused('WEBHOOK_URL_REFUSED', { reason: 'must not point at this machine (loopback) on Vercel' })
  if (parsed.protocol === 'http:' && !(loopback && !onVercel))
    return refused('WEBHOOK_URL_REFUSED', { reason: 'must be https (plain http only to this machine, and only off Vercel)' })
  const range = refusedAddressRange(parsed.hostname)
  if (range && range !== 'loopback') return refused('WEBHOOK_URL_REFUSED', { reason: `must not point at a ${range} address` })
  parsed.hash = ''
  return accepted({ url: parsed.toString() })
}
