import ipaddr from 'ipaddr.js'

/**
 * The client a per-client limit counts: `x-real-ip` (set by Vercel's edge, and by npm start from the socket), else
 * the first `x-forwarded-for` hop, else "unknown" (all such clients then share one allowance). An IPv6 client is its
 * /64, the block one subscriber holds (else one machine would be 2^64 clients); an IPv4-mapped address is its IPv4.
 */
export function clientAddress(request: Request): string {
  const real = request.headers.get('x-real-ip')?.trim()
  const address = real || request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
  return address ? clientBlock(address.slice(0, 64)) : 'unknown'
}

/** An IPv6 address's /64 (`2001:db8:1:2::/64`), an IPv4-mapped one's IPv4, anything else as it is. */
export function clientBlock(address: string): string {
  if (!address.includes(':')) return address
  const bare = address.replace(/^\[|\](:\d+)?$/g, '').replace(/%.*$/, '')
  if (!ipaddr.IPv6.isValid(bare)) return address
  const parsed = ipaddr.IPv6.parse(bare)
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString()
  return `${parsed.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`
}
