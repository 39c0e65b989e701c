import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest'
import { judgeAgentKey } from '../../lib/deploy/actions/agentKey.js'
import { digestAgentKey, generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import {
  AGENT_REGISTRY_MAX,
  createAgentRegistry,
  issueAgentKey,
  listAgentKeys,
  revokeAgentKey,
} from '../../lib/deploy/agents/agentRegistry.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { runAgents, spawnAgents } from '../support/agentsCommand.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

// The command runs in this process (tests/support/agentsCommand.ts), as dev/agents.ts runs it; the cases that spawn the
// real CLI (`spawnAgents`) show that its entry point is the same command.
describe('npm run agents (issue, list, revoke) on the shared store', () => {
  let upstash: UpstashRestServer
  let env: Record<string, string>
  let registries = 0
  beforeAll(async () => {
    upstash = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
  })
  // Every case starts from an empty registry of its own, so each runs alone and in any order.
  beforeEach(() => {
    env = {
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      STORE_KEY_PREFIX: `cli${process.pid}-${++registries}:`,
    }
  })
  afterAll(() => upstash?.close())
  const listed = async () => JSON.parse((await runAgents(['list', '--json'], env)).stdout) as { label: string; revokedAt: number | null }[]

  it('refuses to run without the service’s store variables, naming them', async () => {
    const run = await spawnAgents(['list'], {})
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(/UPSTASH_REDIS_REST_URL.*UPSTASH_REDIS_REST_TOKEN.*KV_REST_API_URL.*KV_REST_API_TOKEN/)
  })

  it('issues a key shown once, keeps only its digest, and lists it without the key', async () => {
    const run = await runAgents(['issue', '--label', 'alice', '--daily-cap', '3', '--expires-days', '30', '--json'], env)
    expect(run.status).toBe(0)
    const issued = JSON.parse(run.stdout) as { key: string; label: string; digest: string }
    expect(Object.keys(issued).sort()).toEqual(['digest', 'key', 'label'])
    expect(issued).toMatchObject({ label: 'alice', digest: digestAgentKey(issued.key) })
    const list = await runAgents(['list', '--json'], env)
    expect(list.stdout).not.toContain(issued.key)
    expect(JSON.parse(list.stdout)).toEqual([
      {
        label: 'alice',
        digestPrefix: issued.digest.slice(0, 12),
        createdAt: expect.any(Number),
        expiresAt: expect.any(Number),
        dailyCap: 3,
        revokedAt: null,
        lastUsedAt: null,
        webhook: null,
      },
    ])
    const human = await runAgents(['list'], env)
    expect(human.stdout).toMatch(/^alice\s+[0-9a-f]{12}\s+created .* active {2}webhook -$/m)
  })

  it.each([
    ['a label already taken', ['issue', '--label', 'taken'], /label "taken" is taken/],
    ['a label with spaces', ['issue', '--label', 'bad label!'], /label "bad label!" must be/],
    ['a negative cap', ['issue', '--label', 'bob', '--daily-cap=-1'], /--daily-cap must be a whole number/],
    ['a cap that is no number', ['issue', '--label', 'bob', '--daily-cap', 'lots'], /--daily-cap must be a number/],
    ['a zero expiry', ['issue', '--label', 'bob', '--expires-days', '0'], /--expires-days must be/],
    ['no label', ['issue'], /issue needs --label/],
    ['an unknown agent to revoke', ['revoke', 'mallory'], /no agent with the label or digest prefix "mallory"/],
    ['an unknown command', ['delete', 'alice'], /usage:/],
  ])('refuses %s with a clear message, exit 1 and nothing written', async (_, args, message) => {
    expect((await runAgents(['issue', '--label', 'taken'], env)).status).toBe(0)
    const before = await listed()
    const run = await runAgents(args, env)
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(message)
    expect(await listed()).toEqual(before)
  })

  it('revokes by label or by digest prefix', async () => {
    expect((await runAgents(['issue', '--label', 'alice'], env)).status).toBe(0)
    const bob = JSON.parse((await runAgents(['issue', '--label', 'bob', '--json'], env)).stdout) as { digest: string }
    expect((await runAgents(['revoke', bob.digest.slice(0, 10)], env)).stdout).toMatch(/revoked "bob"/)
    expect((await runAgents(['revoke', 'alice'], env)).status).toBe(0)
    expect((await listed()).map((a) => [a.label, a.revokedAt !== null])).toEqual([
      ['bob', true],
      ['alice', true],
    ])
  })

  it('sets a webhook at issue time or later, shows its secret once, lists its state and never the secret', async () => {
    const hook = 'https://hooks.agent.example/deploys'
    const run = await runAgents(['issue', '--label', 'hooked', '--webhook', hook, '--json'], env)
    expect(run.status).toBe(0)
    const issued = JSON.parse(run.stdout) as { key: string; label: string; digest: string; webhookSecret: string }
    expect(Object.keys(issued).sort()).toEqual(['digest', 'key', 'label', 'webhookSecret'])
    expect(Buffer.from(issued.webhookSecret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32)
    const entry = async () => {
      const list = await runAgents(['list', '--json'], env)
      expect(list.stdout).not.toContain(issued.webhookSecret.slice(6))
      return (JSON.parse(list.stdout) as { label: string; webhook: Record<string, unknown> | null }[]).find((a) => a.label === 'hooked')!
    }
    expect((await entry()).webhook).toEqual({
      url: hook,
      state: 'active',
      setAt: expect.any(Number),
      disabledAt: null,
      disabledReason: null,
      lastAttemptAt: null,
      lastDeliveryAt: null,
      lastError: null,
      lastErrorAt: null,
      failing: 0,
      failedEvents: 0,
    })
    expect((await runAgents(['list'], env)).stdout).toMatch(
      /^hooked\s.*webhook active https:\/\/hooks\.agent\.example\/deploys\s+last delivery -$/m,
    )

    // A new URL gets a new secret; --off removes it.
    const moved = await runAgents(['webhook', 'hooked', 'https://other.agent.example/h', '--json'], env)
    const secret = (JSON.parse(moved.stdout) as { webhookSecret: string }).webhookSecret
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(issued.webhookSecret)
    expect((await entry()).webhook).toMatchObject({ url: 'https://other.agent.example/h', state: 'active' })
    const off = await runAgents(['webhook', 'hooked', '--off'], env)
    expect(off.stdout).toMatch(/webhook of "hooked" removed/)
    expect((await entry()).webhook).toBeNull()
  })

  it('refuses a webhook URL that could reach a private address, writing nothing', async () => {
    const before = await listed()
    const metadata = await runAgents(['issue', '--label', 'metadata', '--webhook', 'https://169.254.169.254/latest/meta-data'], env)
    expect(metadata.status).toBe(1)
    expect(metadata.stderr).toContain('the webhook URL must not point at a linkLocal address; nothing was written')
    expect(await listed()).toEqual(before)
    const plain = await runAgents(['webhook', 'alice', 'http://hooks.agent.example/x'], env)
    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain('must be https')
    const neither = await runAgents(['webhook', 'alice'], env)
    expect(neither.status).toBe(1)
    expect(neither.stderr).toContain('webhook needs a label and either a URL or --off')
    expect(await listed()).toEqual(before)
  })
})

describe('an instance’s view of runtime keys (injected clock, Upstash over redis-server)', () => {
  let upstash: UpstashRestServer
  beforeAll(async () => {
    upstash = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
  })
  afterAll(() => upstash?.close())

  it('accepts a new key at once, refuses it within 5 s of its revocation, and after its expiry', async () => {
    const store = createUpstashStore({ url: upstash.url, token: upstash.token })
    const storePrefix = `view${process.pid}:`
    let clock = Date.parse('2026-11-23T12:00:00Z')
    const registry = createAgentRegistry({ store, storePrefix, now: () => clock })
    expect(await registry.check(generateAgentKey().key)).toEqual({ ok: false, code: 'FORBIDDEN', reason: 'unknown key' }) // the snapshot is read
    clock += 1000
    const { key } = await issueAgentKey({ store, storePrefix, label: 'carol', dailyCap: 2, expiresInDays: 1, now: clock })
    expect(await registry.check(key)).toEqual({ ok: true, digest: digestAgentKey(key), dailyCap: 2 }) // at once
    await revokeAgentKey(store, storePrefix, 'carol', clock)
    clock += 4900
    expect((await registry.check(key)).ok).toBe(true) // the snapshot of 4.9 s ago
    clock += 100
    expect(await registry.check(key)).toEqual({ ok: false, code: 'FORBIDDEN', reason: 'revoked' }) // 5 s: read again
    const dave = await issueAgentKey({ store, storePrefix, label: 'dave', expiresInDays: 1, now: clock })
    clock += 24 * 60 * 60 * 1000
    expect(await registry.check(dave.key)).toEqual({ ok: false, code: 'FORBIDDEN', reason: 'expired' })
  })

  it('keeps DEPLOY_ALLOWLIST beside it, and answers STORE_UNAVAILABLE rather than a refusal when the store is down', async () => {
    const allowed = generateAgentKey()
    const services = createDeployServices({
      env: { DEPLOY_ALLOWLIST: allowed.digest, UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token },
      logger: silentLogger,
    })
    const source = deployServicesFrom(() => services)
    const judge = (presented: string | null) => judgeAgentKey({ source, door: 'b20-skill', presented, logRefusal: () => {} })
    upstash.setUnreachable(true)
    try {
      expect(await judge(allowed.key)).toEqual({ ok: true, agent: { digest: allowed.digest, dailyCap: null } })
      expect(await judge(generateAgentKey().key)).toMatchObject({
        ok: false,
        code: 'STORE_UNAVAILABLE',
        answer: { status: 200, body: { code: 'STORE_UNAVAILABLE' } },
      })
    } finally {
      upstash.setUnreachable(false)
    }
    expect(await judge(null)).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
      answer: { status: 403, body: { code: 'FORBIDDEN', error: 'X-Service-Key is missing.' } },
    })
  })
})

describe('running instances and runtime keys, over HTTP and MCP (npm start, chain, KMS, Upstash)', () => {
  let parts: ServiceParts
  let server: NpmStart
  const allowlisted = generateAgentKey()
  /** A key issued and revoked before the server started: its first look at the registry already sees it revoked. */
  let revoked: string
  beforeAll(async () => {
    parts = await startServiceParts({
      redisSocket: inject('redisSocket'),
      allowlist: [allowlisted.digest],
      storePrefix: `live${process.pid}:`,
    })
    revoked = (JSON.parse((await runAgents(['issue', '--label', 'frank', '--json'], parts.env)).stdout) as { key: string }).key
    expect((await runAgents(['revoke', 'frank'], parts.env)).status).toBe(0)
    server = await startNpmStart(parts.env)
  })
  afterAll(async () => {
    await server?.stop()
    await parts?.close()
  })

  const post = async (key: string, body: object) => {
    const response = await fetch(`${server.url}/api/b20-skill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': key },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  async function mcpListDeploys(key: string) {
    const client = new Client({ name: 'agent-keys-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    )
    try {
      return (await client.callTool({ name: 'list_deploys', arguments: {} })) as {
        isError?: boolean
        structuredContent?: Record<string, unknown>
      }
    } finally {
      await client.close()
    }
  }

  it('accepts a key issued by npm run agents at once, holds it to its own daily cap, and refuses a revoked one', async () => {
    const issued = await spawnAgents(['issue', '--label', 'erin', '--daily-cap', '1', '--json'], parts.env)
    const { key } = JSON.parse(issued.stdout) as { key: string }
    expect(await post(key, { action: 'list_deploys' })).toMatchObject({ status: 200, body: { ok: true, deploys: [] } })
    expect(await mcpListDeploys(key)).toMatchObject({ structuredContent: { ok: true, deploys: [] } })
    const deploy = (symbol: string) => post(key, { action: 'agent_deploy', name: `Erin ${symbol}`, symbol })
    expect((await deploy('ERA')).body).toMatchObject({ ok: true, status: 'broadcast' })
    expect((await deploy('ERB')).body).toMatchObject({ ok: false, code: 'AGENT_CAP_REACHED' })
    // npm run agents -- list says when each key was last used.
    const listed = JSON.parse((await runAgents(['list', '--json'], parts.env)).stdout) as { label: string; lastUsedAt: number | null }[]
    expect(listed.find((a) => a.label === 'erin')?.lastUsedAt).toEqual(expect.any(Number))
    // The allowlist keeps working beside the registry.
    expect(await post(allowlisted.key, { action: 'list_deploys' })).toMatchObject({ status: 200, body: { ok: true } })

    // A revocation reaches a running instance within its snapshot's 5 s (the injected-clock case above); a key revoked
    // before this instance first read the registry is refused at once, over HTTP and MCP.
    expect(await post(revoked, { action: 'list_deploys' })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } })
    expect(await mcpListDeploys(revoked)).toMatchObject({ isError: true, structuredContent: { code: 'FORBIDDEN' } })
    // The lines come through the server's stdout: wait for them, not for the clock.
    const refusals = () =>
      server.lines.filter((line) => line.includes('"deploy_refused"')).map((line) => JSON.parse(line) as Record<string, string>)
    await expect
      .poll(refusals, { timeout: 5_000 })
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ endpoint: 'b20-skill', reason: 'key revoked', keyDigest: digestAgentKey(revoked).slice(0, 8) }),
          expect.objectContaining({ endpoint: 'mcp', reason: 'key revoked' }),
        ]),
      )
  })
})

describe('a full registry refuses to issue rather than drop a valid key (the in-process store)', () => {
  it('purges expired and long-revoked keys to make room, then refuses with a clear message, keeping every valid key', async () => {
    const store = createMemoryStore()
    const prefix = 'full:'
    const now = 1_800_000_000_000
    const day = 24 * 60 * 60 * 1000
    const keys: string[] = []
    for (let i = 0; i < AGENT_REGISTRY_MAX; i++) {
      const expiresInDays = i === 5 ? 1 : null // one key that will have expired
      keys.push((await issueAgentKey({ store, storePrefix: prefix, label: `agent${i}`, expiresInDays, now: now - 40 * day + i })).key)
    }
    await revokeAgentKey(store, prefix, 'agent7', now - 31 * day) // revoked long ago: may go
    await revokeAgentKey(store, prefix, 'agent8', now - 2 * day) // revoked lately: stays listed
    // Key 1,001: room is made from the expired key and the long-revoked one; the oldest valid key stays.
    await issueAgentKey({ store, storePrefix: prefix, label: 'newcomer', now })
    const listed = await listAgentKeys(store, prefix)
    expect(listed.map((a) => a.label)).not.toContain('agent5')
    expect(listed.map((a) => a.label)).not.toContain('agent7')
    expect(listed.map((a) => a.label)).toEqual(expect.arrayContaining(['agent0', 'agent8', 'newcomer']))
    await issueAgentKey({ store, storePrefix: prefix, label: 'another', now })
    expect(await listAgentKeys(store, prefix)).toHaveLength(AGENT_REGISTRY_MAX)
    // Full of valid keys: refused, nothing written, and the oldest key still works.
    await expect(issueAgentKey({ store, storePrefix: prefix, label: 'onetoomany', now })).rejects.toThrow(
      /holds 1000 agents .*revoke unused ones/,
    )
    expect((await listAgentKeys(store, prefix)).map((a) => a.label)).not.toContain('onetoomany')
    const registry = createAgentRegistry({ store, storePrefix: prefix, now: () => now })
    expect(await registry.check(keys[0]!)).toMatchObject({ ok: true })
  }, 60_000)
})
