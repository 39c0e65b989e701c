import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/agents.js'
import { startAnvilChain, type AnvilChain } from '../support/anvil.js'
import { startFakeDexScreener, type FakeDexScreener } from '../support/fakeDexScreener.js'
import { startFakeKms, type FakeKms } from '../support/fakeKms.js'
import { startNpmStart, type NpmStart } from '../support/npmStart.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

const agent = generateAgentKey()
const CAP = 20
/** The documented longest wait for the nonce lock (README: a waiter gives up after 20 s). */
const LOCK_WAIT_MS = 20_000

describe('three npm start processes over one Redis, one signer, one chain', () => {
  let upstream: FakeDexScreener
  let upstash: UpstashRestServer
  let chain: AnvilChain
  let kms: FakeKms
  let instances: NpmStart[] = []
  let signer: Hex
  const prefix = `inst${process.pid}:`

  const startInstances = async (cap: number) => {
    await Promise.all(instances.map((i) => i.stop()))
    instances = await Promise.all(
      [0, 1, 2].map(() =>
        startNpmStart({
          DEXSCREENER_BASE_URL: upstream.url,
          UPSTASH_REDIS_REST_URL: upstash.url,
          UPSTASH_REDIS_REST_TOKEN: upstash.token,
          STORE_KEY_PREFIX: prefix,
          DEPLOY_ALLOWLIST: agent.digest,
          DEPLOY_DAILY_CAP: String(cap),
          BASE_RPC_URL: chain.rpcUrl,
          KMS_KEY_ID: kms.keyArn,
          AWS_REGION: 'us-east-1',
          AWS_ENDPOINT_URL_KMS: kms.url,
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        }),
      ),
    )
  }

  /** `count` deploys at once, spread round-robin over the instances; each answer with how long it took. */
  const deployAtOnce = (count: number, tag: string) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const started = Date.now()
        const response = await fetch(`${instances[i % instances.length]!.url}/api/b20-skill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
          body: JSON.stringify({ action: 'agent_deploy', name: `Instance ${tag} ${i}`, symbol: `${tag}${i}` }),
        })
        return { status: response.status, body: (await response.json()) as Record<string, any>, ms: Date.now() - started }
      }),
    )

  /** The deploys that went out: each transaction's nonce, checked mined and successful. */
  const minedNonces = async (hashes: Hex[]) =>
    Promise.all(
      hashes.map(async (hash) => {
        const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 })
        expect(receipt.status).toBe('success')
        return (await chain.publicClient.getTransaction({ hash })).nonce
      }),
    )

  beforeAll(async () => {
    const secretKey = randomBytes(32)
    signer = privateKeyToAddress(`0x${secretKey.toString('hex')}`)
    ;[upstream, upstash, chain, kms] = await Promise.all([
      startFakeDexScreener(createSyntheticMarket()),
      startUpstashRestServer({ redisSocket: inject('redisSocket') }),
      startAnvilChain(),
      startFakeKms({ secretKey }),
    ])
    await chain.fund(signer)
  }, 60_000)
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()))
    await Promise.all([upstream?.close(), upstash?.close(), chain?.stop(), kms?.close()])
  })

  it(`broadcasts exactly the cap of ${CAP} out of ${CAP + 5} concurrent deploys spread over the three`, async () => {
    await startInstances(CAP)
    const answers = await deployAtOnce(CAP + 5, 'C')
    const sent = answers.filter((a) => a.body.ok)
    expect(sent).toHaveLength(CAP)
    expect(answers.filter((a) => !a.body.ok).map((a) => a.body.code)).toEqual(Array(5).fill('DEPLOY_CAP_REACHED'))
    const nonces = await minedNonces(sent.map((a) => a.body.txHash))
    expect(new Set(nonces).size).toBe(CAP)
    expect(kms.calls.filter((c) => c === 'Sign')).toHaveLength(CAP)
  }, 120_000)

  it('gives 40 concurrent deploys over three instances distinct consecutive nonces, all mined, none signed twice', async () => {
    await startInstances(1000)
    const signsBefore = kms.calls.filter((c) => c === 'Sign').length
    const firstNonce = await chain.publicClient.getTransactionCount({ address: signer, blockTag: 'pending' })
    const answers = await deployAtOnce(40, 'F')
    // Every answer is a broadcast or, past the documented wait, DEPLOY_BUSY; none took longer than that wait.
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.body.ok || answer.body.code === 'DEPLOY_BUSY').toBe(true)
      expect(answer.ms).toBeLessThan(LOCK_WAIT_MS + 5000)
    }
    const sent = answers.filter((a) => a.body.ok)
    expect(sent.length).toBeGreaterThanOrEqual(38)
    const nonces = (await minedNonces(sent.map((a) => a.body.txHash))).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: sent.length }, (_, i) => firstNonce + i))
    // One KMS Sign per transaction sent: no nonce was signed twice.
    expect(kms.calls.filter((c) => c === 'Sign').length - signsBefore).toBe(sent.length)
    expect(await chain.publicClient.getTransactionCount({ address: signer, blockTag: 'latest' })).toBe(firstNonce + sent.length)
  }, 120_000)
})
