import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'

const deployBody = (symbol: string) => ({ action: 'agent_deploy', name: 'Pipeline Token', symbol })

describe('deploys of one instance sign while the previous one sends (anvil, the KMS server, Upstash over redis-server)', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } })
  })
  afterAll(() => stack.close())

  const nonceOf = async (hash: Hex) => {
    const receipt = await stack.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 })
    expect(receipt.status).toBe('success')
    return (await stack.chain.publicClient.getTransaction({ hash })).nonce
  }

  it('keeps the nonce stream whole when the node refuses a send the next deploy was signed behind', async () => {
    const start = await stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
    const signsBefore = stack.kms.calls.filter((c) => c === 'Sign').length
    // The first send of the burst is refused, slowly: the deploy after it has signed the next nonce by then.
    stack.chain.refuseNext('eth_sendRawTransaction', 'max fee per gas less than block base fee', 400)
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => stack.post(deployBody(`PIPE${i}`))))
    const refused = answers.filter((a) => !a.body.ok)
    expect(refused.map((a) => a.body.code)).toEqual(['RPC_REJECTED'])
    const sent = answers.filter((a) => a.body.ok)
    expect(sent).toHaveLength(7)
    // No gap: the seven take the seven nonces right after the start, and all are mined.
    const nonces = (await Promise.all(sent.map((a) => nonceOf(a.body.txHash)))).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: 7 }, (_, i) => start + i))
    // The deploy signed behind the refused one moved down into its nonce: one signature more than deploys sent.
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length - signsBefore
    expect(signs).toBeGreaterThanOrEqual(9)
    // The refused one is in nobody's history; the next deploy takes the next nonce.
    const next = await stack.post(deployBody('AFTER'))
    expect(await nonceOf(next.body.txHash)).toBe(start + 7)
  })

  it('sends in nonce order even when sends overlap signatures: every deploy of a burst is mined', async () => {
    const start = await stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => stack.post(deployBody(`ORD${i}`))))
    expect(answers.every((a) => a.body.ok)).toBe(true)
    const nonces = (await Promise.all(answers.map((a) => nonceOf(a.body.txHash)))).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: 12 }, (_, i) => start + i))
  })
})
