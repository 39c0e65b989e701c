import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'

const agent = generateAgentKey()
const CAP = 20

describe('three npm start processes over one Redis, one signer, one chain', () => {
  let parts: ServiceParts
  let instances: NpmStart[] = []

  /** Three instances with a deploy cap, over a store prefix of the case's own: no case counts another's deploys. */
  const startInstances = async (cap: number, tag: string) => {
    await Promise.all(instances.map((i) => i.stop()))
    const env = { ...parts.env, DEPLOY_DAILY_CAP: String(cap), STORE_KEY_PREFIX: `inst${process.pid}${tag}:` }
    instances = await Promise.all([0, 1, 2].map(() => startNpmStart(env)))
  }

  /** `count` deploys at once, spread round-robin over the instances. */
  const deployAtOnce = (count: number, tag: string) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const response = await fetch(`${instances[i % instances.length]!.url}/api/b20-skill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
          body: JSON.stringify({ action: 'agent_deploy', name: `Instance ${tag} ${i}`, symbol: `${tag}${i}` }),
        })
        return { status: response.status, body: (await response.json()) as Record<string, any> }
      }),
    )

  /** The deploys that went out: each transaction's nonce, checked mined and successful. */
  const minedNonces = async (hashes: Hex[]) =>
    Promise.all(
      hashes.map(async (hash) => {
        const receipt = await parts.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 })
        expect(receipt.status).toBe('success')
        return (await parts.chain.publicClient.getTransaction({ hash })).nonce
      }),
    )

  beforeAll(async () => {
    parts = await startServiceParts({ redisSocket: inject('redisSocket'), allowlist: [agent.digest], storePrefix: `inst${process.pid}:` })
  }, 60_000)
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()))
    await parts?.close()
  })

  it(`broadcasts exactly the cap of ${CAP} out of ${CAP + 5} concurrent deploys spread over the three`, async () => {
    await startInstances(CAP, 'cap')
    const signsBefore = parts.kms.calls.filter((c) => c === 'Sign').length
    const answers = await deployAtOnce(CAP + 5, 'C')
    const sent = answers.filter((a) => a.body.ok)
    expect(sent).toHaveLength(CAP)
    expect(answers.filter((a) => !a.body.ok).map((a) => a.body.code)).toEqual(Array(5).fill('DEPLOY_CAP_REACHED'))
    const nonces = await minedNonces(sent.map((a) => a.body.txHash))
    expect(new Set(nonces).size).toBe(CAP)
    expect(parts.kms.calls.filter((c) => c === 'Sign').length - signsBefore).toBe(CAP)
  }, 120_000)

  it('gives 40 concurrent deploys over three instances distinct consecutive nonces, all mined, none signed twice', async () => {
    await startInstances(1000, 'flood')
    const signsBefore = parts.kms.calls.filter((c) => c === 'Sign').length
    const firstNonce = await parts.chain.publicClient.getTransactionCount({ address: parts.signer, blockTag: 'pending' })
    const answers = await deployAtOnce(40, 'F')
    // Every answer is a broadcast or, past the documented wait, DEPLOY_BUSY.
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.body.ok || answer.body.code === 'DEPLOY_BUSY', JSON.stringify(answer.body)).toBe(true)
    }
    const sent = answers.filter((a) => a.body.ok)
    expect(sent.length).toBeGreaterThanOrEqual(38)
    const nonces = (await minedNonces(sent.map((a) => a.body.txHash))).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: sent.length }, (_, i) => firstNonce + i))
    // One KMS Sign per transaction sent: no nonce was signed twice.
    expect(parts.kms.calls.filter((c) => c === 'Sign').length - signsBefore).toBe(sent.length)
    expect(await parts.chain.publicClient.getTransactionCount({ address: parts.signer, blockTag: 'latest' })).toBe(firstNonce + sent.length)
  }, 120_000)
})
