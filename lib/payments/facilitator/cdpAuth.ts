import { createPrivateKey, type KeyObject, randomBytes, sign } from 'node:crypto'

// Coinbase's hosted facilitator (CDP) takes a short JWT per call, signed with the operator's CDP API key: ES256 with
// an EC key in PEM, or EdDSA with a base64 Ed25519 key (seed and public key, 64 bytes). The claims name the key and
// the one request it allows (`uris`: "POST api.cdp.coinbase.com/platform/v2/x402/settle"). Node's own crypto signs
// it: no SDK (CDP's brings Solana and an analytics postinstall) for about forty lines of a documented format.

/** How long a CDP JWT is valid: CDP's own SDK uses 120 s. */
const JWT_LIFETIME_SECONDS = 120

/** The operator's CDP API key, as `CDP_API_KEY_ID` and `CDP_API_KEY_SECRET` give it. */
export type CdpCredentials = { keyId: string; secret: string }

/** The key and the JWT algorithm it signs with; throws (never quoting the key) when the secret is neither form. */
function signingKeyOf(secret: string): { key: KeyObject; alg: 'ES256' | 'EdDSA' } {
  if (secret.includes('-----BEGIN')) return { key: createPrivateKey(secret.replace(/\\n/g, '\n')), alg: 'ES256' }
  const raw = Buffer.from(secret.trim(), 'base64')
  if (raw.length !== 64) throw new Error('CDP_API_KEY_SECRET is neither a PEM EC key nor a base64 Ed25519 key (64 bytes)')
  const jwk = { kty: 'OKP', crv: 'Ed25519', d: raw.subarray(0, 32).toString('base64url'), x: raw.subarray(32).toString('base64url') }
  return { key: createPrivateKey({ key: jwk, format: 'jwk' }), alg: 'EdDSA' }
}

/** Why a CDP secret cannot sign (for the configuration's check, never quoting it), or null when it can. */
export function cdpSecretProblem(secret: string): string | null {
  try {
    signingKeyOf(secret)
    return null
  } catch {
    return 'is neither a PEM EC key nor a base64 Ed25519 key (64 bytes: seed and public key)'
  }
}

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Parameters of {@link cdpJwt}. */
export type CdpJwtParameters = { credentials: CdpCredentials; method: 'GET' | 'POST'; url: string; nowSeconds: number }

/** A CDP bearer JWT for one request (`method` on `url`'s host and path). */
export function cdpJwt({ credentials, method, url, nowSeconds }: CdpJwtParameters): string {
  const { key, alg } = signingKeyOf(credentials.secret)
  const { host, pathname } = new URL(url)
  const header = { alg, kid: credentials.keyId, typ: 'JWT', nonce: randomBytes(16).toString('hex') }
  const claims = {
    sub: credentials.keyId,
    iss: 'cdp',
    uris: [`${method} ${host}${pathname}`],
    iat: nowSeconds,
    nbf: nowSeconds,
    exp: nowSeconds + JWT_LIFETIME_SECONDS,
  }
  const signingInput = `${part(header)}.${part(claims)}`
  const signature =
    alg === 'ES256'
      ? sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' })
      : sign(null, Buffer.from(signingInput), key)
  return `${signingInput}.${signature.toString('base64url')}`
}

/**
 * The `createAuthHeaders` of @x402/core's HTTPFacilitatorClient for CDP: a fresh JWT for each of verify, settle and
 * supported under the facilitator's base URL, keyed by path as the client expects.
 */
export function cdpAuthHeaders(credentials: CdpCredentials, facilitatorUrl: string, now: () => number) {
  const base = facilitatorUrl.replace(/\/+$/, '')
  const bearer = (method: 'GET' | 'POST', path: string) => ({
    Authorization: `Bearer ${cdpJwt({ credentials, method, url: `${base}/${path}`, nowSeconds: Math.floor(now() / 1000) })}`,
  })
  return async () => ({ verify: bearer('POST', 'verify'), settle: bearer('POST', 'settle'), supported: bearer('GET', 'supported') })
}
