import { encodeFunctionData, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { parseTransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'

// Records stored before transactions had a kind are still in Redis (30 days): each must read back as what it was.

const erc20 = parseAbi(['function approve(address, uint256) returns (bool)', 'function transfer(address, uint256) returns (bool)'])
const token = '0xb200000000000000000000000000000000000001'
const owner = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const launchHash = `0x${'1'.repeat(64)}` as const

/** A record as the version before kinds wrote it. */
const stored = (extra: Record<string, unknown>) =>
  JSON.stringify({
    txHash: `0x${'2'.repeat(64)}`,
    agent: 'a'.repeat(64),
    predictedAddress: token,
    name: 'Old',
    symbol: 'OLD',
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
    ...extra,
  })

const pool = {
  poolId: `0x${'3'.repeat(64)}`,
  currency0: '0x0000000000000000000000000000000000000000',
  currency1: token,
  fee: 10000,
  tickSpacing: 200,
  hooks: '0x0000000000000000000000000000000000000000',
  sqrtPriceX96: '1',
  tickLower: -887200,
  tickUpper: 887200,
  amount: '1',
  owner,
  seedTxHashes: [],
}

describe('a stored transaction record without a kind', () => {
  it('is a deploy to the B20 factory when it has neither seedOf nor pool', () => {
    const record = parseTransactionRecord(stored({}))
    expect(record).toMatchObject({ kind: 'deploy', to: B20_FACTORY_ADDRESS })
    expect(record).not.toHaveProperty('of')
  })

  it('is a launch to the B20 factory when it has a pool', () => {
    expect(parseTransactionRecord(stored({ pool }))).toMatchObject({ kind: 'launch', to: B20_FACTORY_ADDRESS })
  })

  it('is a seed of its launch when it has seedOf (an approval, the mint)', () => {
    const data = encodeFunctionData({ abi: erc20, functionName: 'approve', args: [owner, 1n] })
    const record = parseTransactionRecord(stored({ to: token, data, seedOf: launchHash }))
    expect(record).toMatchObject({ kind: 'seed', to: token, of: launchHash })
    expect(record).not.toHaveProperty('seedOf')
  })

  it('is the pool share given back when it has seedOf and sends transfer', () => {
    const data = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [owner, 1n] })
    expect(parseTransactionRecord(stored({ to: token, data, seedOf: launchHash }))).toMatchObject({
      kind: 'return',
      to: token,
      of: launchHash,
    })
  })

  it('keeps the kind, to and of a record of this version wrote', () => {
    const record = parseTransactionRecord(stored({ kind: 'seed', to: token, of: launchHash }))
    expect(record).toMatchObject({ kind: 'seed', to: token, of: launchHash })
  })
})
