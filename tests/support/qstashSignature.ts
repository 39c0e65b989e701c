import { createHash, createHmac } from 'node:crypto'

/** Parameters of {@link signAsQStash}. */
export type SignAsQStashParameters = {
  signingKey: string
  /** The destination URL QStash was asked to call (the token's `sub`). */
  url: string
  body: string
  /** Seconds from now until the signature expires (negative: already expired). Default 300. */
  expiresInSeconds?: number
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url')

/**
 * An `Upstash-Signature` as QStash makes it (upstash.com/docs/qstash/howto/signature): a JWT signed with HS256 under
 * the signing key, issuer `Upstash`, subject the URL, `body` the base64url SHA-256 of the body, a short expiry.
 */
export function signAsQStash({ signingKey, url, body, expiresInSeconds = 300 }: SignAsQStashParameters): string {
  const now = Math.floor(Date.now() / 1000)
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const payload = base64url(
    JSON.stringify({
      iss: 'Upstash',
      sub: url,
      exp: now + expiresInSeconds,
      nbf: now - 60,
      iat: now - 60,
      jti: `jwt_${Math.random().toString(36).slice(2)}`,
      body: createHash('sha256').update(body).digest('base64url'),
    }),
  )
  const signature = createHmac('sha256', signingKey).update(`${header}.${payload}`).digest('base64url')
  return `${header}.${payload}.${signature}`
}
