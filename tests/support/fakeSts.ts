import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * An STS-compatible HTTP server (AWS Query protocol) answering `AssumeRoleWithWebIdentity`, for the real AWS SDK
 * pointed at it with `AWS_ENDPOINT_URL_STS`. It accepts one role and one web identity token, issues short-lived
 * credentials for them, and refuses anything else with AccessDenied, as STS does when the role's trust policy does
 * not match.
 */
export type FakeSts = {
  url: string
  /** Every AssumeRoleWithWebIdentity call: the role, the session name and the token presented. */
  calls: { roleArn: string; roleSessionName: string; token: string }[]
  /** The credentials it issued, newest last. */
  issued: { accessKeyId: string; secretAccessKey: string; sessionToken: string }[]
  /** Refuses every call (a trust policy that does not match) until set back. */
  setRefusing(refusing: boolean): void
  close(): Promise<void>
}

/** Parameters of {@link startFakeSts}. */
export type StartFakeStsParameters = { roleArn: string; token: string }

/** Starts the fake STS on a free loopback port. */
export async function startFakeSts({ roleArn, token }: StartFakeStsParameters): Promise<FakeSts> {
  const calls: FakeSts['calls'] = []
  const issued: FakeSts['issued'] = []
  let refusing = false
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    const xml = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/xml' })
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`)
    }
    const refuse = (code: string, message: string) =>
      xml(
        403,
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fake-${randomBytes(4).toString('hex')}</RequestId></ErrorResponse>`,
      )
    if (form.get('Action') !== 'AssumeRoleWithWebIdentity') return refuse('InvalidAction', 'Only AssumeRoleWithWebIdentity is served here')
    const call = {
      roleArn: form.get('RoleArn') ?? '',
      roleSessionName: form.get('RoleSessionName') ?? '',
      token: form.get('WebIdentityToken') ?? '',
    }
    calls.push(call)
    if (refusing || call.roleArn !== roleArn || call.token !== token) {
      return refuse('AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity')
    }
    const credentials = {
      accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
    }
    issued.push(credentials)
    const expiration = new Date(Date.now() + 3600_000).toISOString()
    xml(
      200,
      `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>${credentials.accessKeyId}</AccessKeyId><SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey><SessionToken>${credentials.sessionToken}</SessionToken><Expiration>${expiration}</Expiration></Credentials><SubjectFromWebIdentityToken>owner:acme:project:bcr:environment:production</SubjectFromWebIdentityToken><AssumedRoleUser><Arn>${roleArn}/${call.roleSessionName}</Arn><AssumedRoleId>AROAFAKE:${call.roleSessionName}</AssumedRoleId></AssumedRoleUser><Provider>oidc.vercel.com/acme</Provider><Audience>https://vercel.com/acme</Audience></AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>fake-${randomBytes(4).toString('hex')}</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`,
    )
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    issued,
    setRefusing: (next) => {
      refusing = next
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

/** A JWT shaped like Vercel's OIDC token (unsigned test material), valid for an hour: the SDK only passes it on. */
export function fakeVercelOidcToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  return [
    part({ alg: 'RS256', typ: 'JWT', kid: 'test' }),
    part({
      iss: 'https://oidc.vercel.com/acme',
      sub: 'owner:acme:project:bcr:environment:production',
      aud: 'https://vercel.com/acme',
      iat: now,
      exp: now + 3600,
    }),
    randomBytes(32).toString('base64url'),
  ].join('.')
}
