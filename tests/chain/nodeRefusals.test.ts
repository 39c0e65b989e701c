import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeRefusalOf } from '../../lib/deploy/sender/chainErrors.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'

/** How the deploy path names what a real node (anvil) answers a broadcast, through viem's typed node errors. */
describe('node refusals, as anvil sends them', () => {
  let chain: AnvilChain
  beforeAll(async () => {
    chain = await startAnvilChain()
  })
  afterAll(() => chain?.stop())

  const transfer = async (key: `0x${string}`, nonce: number) => {
    const account = privateKeyToAccount(key)
    const fees = await chain.publicClient.estimateFeesPerGas()
    return account.signTransaction({ chainId: 8453, to: account.address, value: 0n, gas: 21_000n, nonce, ...fees })
  }
  const refusalOf = (serialized: `0x${string}`) =>
    chain.publicClient.sendRawTransaction({ serializedTransaction: serialized }).then(
      () => 'accepted',
      (error: unknown) => nodeRefusalOf(error),
    )

  it('names no funds, a used nonce, and the same transaction sent twice', async () => {
    const poor = generatePrivateKey()
    expect(await refusalOf(await transfer(poor, 0))).toBe('insufficient-funds')

    const funded = generatePrivateKey()
    await chain.fund(privateKeyToAccount(funded).address)
    const first = await transfer(funded, 0)
    expect(await refusalOf(first)).toBe('accepted')
    expect(await refusalOf(first)).toBe('nonce-used') // already known to the node
    await chain.testClient.mine({ blocks: 1 })
    expect(await refusalOf(await transfer(funded, 0))).toBe('nonce-used')
    expect(nodeRefusalOf(new Error('not a viem error'))).toBe('other')
  })
})
