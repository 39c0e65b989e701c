import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createChainClient } from '../../lib/chain/client.js'
import { BLOCK_MS } from '../../lib/deploy/sender/feeCache.js'
import { signerLock } from '../../lib/deploy/sender/nonceLock.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { createTestClock } from '../support/testClock.js'

// The deploy services run on the one clock they are given: the fees age on it and the nonce lock waits on it, as the
// records are stamped with it (lib/platform/clock.ts). A test clock that only moves by hand shows it.

let chain: AnvilChain
beforeAll(async () => {
  chain = await startAnvilChain()
})
afterAll(async () => {
  await chain?.stop()
})

const signer = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

/** Two instances over one store and one test clock. */
function instances() {
  const clock = createTestClock()
  const store = createMemoryStore()
  const build = (): DeployServices =>
    createDeployServices({
      env: { BASE_RPC_URL: chain.rpcUrl, STORE_KEY_PREFIX: 'servicesclock:' },
      store,
      publicClient: createChainClient({ rpcUrl: chain.rpcUrl, chainId: 8453 }),
      clock: clock.clock,
    })
  return { clock, first: build(), second: build() }
}

describe('the deploy services on a test clock', () => {
  it('read the network fees again only once the clock has moved a block on', async () => {
    const { clock, first } = instances()
    const feeReads = () => chain.rpcMethods.filter((method) => method === 'eth_feeHistory').length
    const before = feeReads()
    await first.fees.ofBlock()
    await first.fees.ofBlock()
    expect(feeReads()).toBe(before + 1)
    clock.now += BLOCK_MS
    await first.fees.ofBlock()
    expect(feeReads()).toBe(before + 2)
  })

  it('wait for a nonce lock held by another instance until the clock passes the wait, then answer none', async () => {
    const { clock, first, second } = instances()
    const lock = (waitMs: number) => signerLock({ storePrefix: 'servicesclock:', chainId: 8453, signer, leaseMs: 60_000, waitMs })
    const held = await first.nonceLocks!.acquire(lock(0))
    expect(held).not.toBeNull()
    let answered: unknown = 'waiting'
    const waiting = second.nonceLocks!.acquire(lock(5_000)).then((got) => {
      answered = got
    })
    await vi.waitFor(() => expect(clock.sleeping).toBeGreaterThan(0))
    expect(answered).toBe('waiting')
    clock.now += 5_000
    await waiting
    expect(answered).toBeNull()
    await held!.release()
  })
})
