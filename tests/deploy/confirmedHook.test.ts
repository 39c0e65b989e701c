import { describe, expect, it } from 'vitest'
import { createChainClient } from '../../lib/chain/client.js'
import { parseTransactionRecord, type TransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { createLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'

// A confirmed deploy is announced through the hook the deploy services are handed (lib/launches/instance.ts hands the
// launch announcement): the deploy side imports nothing of lib/launches, and a failing hook never costs the receipt
// or the follow-up that learned it.

const record = parseTransactionRecord(
  JSON.stringify({
    kind: 'deploy',
    txHash: `0x${'2'.repeat(64)}`,
    to: '0xb200000000000000000000000000000000000000',
    agent: 'a'.repeat(64),
    predictedAddress: '0xb200000000000000000000000000000000000001',
    name: 'Hooked',
    symbol: 'HOOK',
    variant: 'asset',
    decimals: 18,
    createdAt: 1,
    sentAt: 1,
    status: 'confirmed',
    nonce: 3,
    gas: '100000',
    maxFeePerGas: '2000000',
    maxPriorityFeePerGas: '1000000',
    data: '0xdeadbeef',
  }),
)!

/** Deploy services over a memory store (no chain call is made), with the hook given and the log lines kept. */
function servicesWith(onConfirmed?: (services: DeployServices, record: TransactionRecord) => Promise<void>) {
  const logs: string[] = []
  const services = createDeployServices({
    env: { BASE_RPC_URL: 'http://127.0.0.1:9', STORE_KEY_PREFIX: 'hook:' },
    store: createMemoryStore(),
    publicClient: createChainClient({ rpcUrl: 'http://127.0.0.1:9', chainId: 8453 }),
    logger: createLogger({ write: (line) => logs.push(line), env: {} }),
    onConfirmed,
  })
  return { services, logs }
}

describe('the deploy services’ confirmed hook', () => {
  it('is handed the services and the confirmed record', async () => {
    const seen: [DeployServices, TransactionRecord][] = []
    const { services } = servicesWith(async (given, confirmed) => {
      seen.push([given, confirmed])
    })
    expect(record).not.toBeNull()
    await services.announceConfirmed(record)
    expect(seen).toHaveLength(1)
    expect(seen[0]![0]).toBe(services)
    expect(seen[0]![1]).toBe(record)
  })

  it('never throws: a failing hook is logged by the deploy it was told of, without its message', async () => {
    const { services, logs } = servicesWith(async () => {
      throw new Error('secret detail of the hook')
    })
    await expect(services.announceConfirmed(record)).resolves.toBeUndefined()
    const line = logs.map((l) => JSON.parse(l)).find((l) => l.event === 'confirmed_hook_failed')
    expect(line).toMatchObject({ level: 'warn', txHash: record.txHash, error: 'Error' })
    expect(logs.join('\n')).not.toContain('secret detail')
  })

  it('is nothing when none is given', async () => {
    const { services, logs } = servicesWith()
    await expect(services.announceConfirmed(record)).resolves.toBeUndefined()
    expect(logs).toEqual([])
  })
})
