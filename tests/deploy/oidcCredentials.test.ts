import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { createLogger } from '../../lib/platform/log.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { type FakeKms, startFakeKms } from '../support/fakeKms.js'
import { type FakeSts, fakeVercelOidcToken, startFakeSts } from '../support/fakeSts.js'

const KEY = 'bcr_oidc-test-agent-key-0000000000000000'
const ROLE = 'arn:aws:iam::123456789012:role/base-control-room-signer'
const AWS_VARIABLES = [
  'AWS_ENDPOINT_URL_KMS',
  'AWS_ENDPOINT_URL_STS',
  'VERCEL_OIDC_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
]

/** AWS without static secrets: the KMS client's credentials come from STS for Vercel's OIDC token (real AWS SDK). */
describe('KMS credentials from Vercel OIDC (AWS_ROLE_ARN, STS AssumeRoleWithWebIdentity)', () => {
  let chain: AnvilChain
  let kms: FakeKms
  let sts: FakeSts
  const token = fakeVercelOidcToken()
  const saved = Object.fromEntries(AWS_VARIABLES.map((name) => [name, process.env[name]]))
  const lines: string[] = []

  beforeAll(async () => {
    chain = await startAnvilChain()
    kms = await startFakeKms()
    sts = await startFakeSts({ roleArn: ROLE, token })
    // What a Vercel deployment has: the OIDC token (here as VERCEL_OIDC_TOKEN, as after `vercel env pull`), no AWS key.
    for (const name of AWS_VARIABLES) delete process.env[name]
    Object.assign(process.env, { AWS_ENDPOINT_URL_KMS: kms.url, AWS_ENDPOINT_URL_STS: sts.url, VERCEL_OIDC_TOKEN: token })
  })
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    await chain?.stop()
    await kms?.close()
    await sts?.close()
  })
  beforeEach(() => {
    lines.length = 0
    sts.setRefusing(false)
  })

  const env = (extra: Record<string, string> = {}) => ({
    DEPLOY_ALLOWLIST: digestAgentKey(KEY),
    KMS_KEY_ID: kms.keyArn,
    AWS_REGION: 'us-east-1',
    AWS_ROLE_ARN: ROLE,
    BASE_RPC_URL: chain.rpcUrl,
    ...extra,
  })
  const deployWith = async (services: ReturnType<typeof createDeployServices>) => {
    const handle = createB20SkillEndpoint(deployServicesFrom(() => services)).fetch
    const answer = await handle(
      new Request('http://x/api/b20-skill', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': KEY },
        body: JSON.stringify({ action: 'agent_deploy', name: 'Oidc Token', symbol: 'OIDC' }),
      }),
    )
    return { status: answer.status, text: await answer.text() }
  }
  const servicesFor = (extra: Record<string, string> = {}) =>
    createDeployServices({ env: env(extra), logger: createLogger({ write: (line) => lines.push(line) }) })

  it('signs with the short-lived credentials STS issued for the OIDC token, asking STS once for both KMS calls', async () => {
    const services = servicesFor()
    expect(services.config.awsRoleArn).toBe(ROLE)
    await chain.fund((await services.getSigner!()).address)
    const { text } = await deployWith(services)
    expect(JSON.parse(text)).toMatchObject({ ok: true, status: 'broadcast' })
    expect(sts.calls).toEqual([{ roleArn: ROLE, roleSessionName: 'base-control-room', token }])
    const issued = sts.issued[0]!
    expect(kms.credentials.length).toBeGreaterThanOrEqual(2) // GetPublicKey, Sign
    for (const used of kms.credentials) expect(used).toEqual({ accessKeyId: issued.accessKeyId, sessionToken: issued.sessionToken })
  })

  it('answers SIGNER_UNAVAILABLE when STS refuses the token, and logs it without the token', async () => {
    sts.setRefusing(true)
    const kmsCallsBefore = kms.calls.length
    const { text } = await deployWith(servicesFor())
    expect(JSON.parse(text)).toMatchObject({ ok: false, code: 'SIGNER_UNAVAILABLE' })
    expect(kms.calls.length).toBe(kmsCallsBefore) // nothing reached KMS without credentials
    expect(lines.some((line) => line.includes('"kms_unavailable"'))).toBe(true)
    for (const output of [text, ...lines]) expect(output).not.toContain(token.split('.')[2])
  })

  it('keeps a static access key as the fallback: with AWS_ACCESS_KEY_ID set, STS is not asked', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIASTATICFALLBACK01', AWS_SECRET_ACCESS_KEY: 'static-secret-for-the-fallback' })
    try {
      const stsCalls = sts.calls.length
      const services = servicesFor({ AWS_ACCESS_KEY_ID: 'AKIASTATICFALLBACK01' })
      expect(services.config.awsRoleArn).toBeNull()
      await services.getSigner!()
      expect(sts.calls.length).toBe(stsCalls)
      expect(kms.credentials.at(-1)).toEqual({ accessKeyId: 'AKIASTATICFALLBACK01', sessionToken: null })
    } finally {
      delete process.env.AWS_ACCESS_KEY_ID
      delete process.env.AWS_SECRET_ACCESS_KEY
    }
  })

  it('names a malformed AWS_ROLE_ARN', () => {
    expect(() => servicesFor({ AWS_ROLE_ARN: 'arn:aws:iam::123:user/someone' })).toThrow(/AWS_ROLE_ARN: must be an IAM role ARN/)
  })
})
