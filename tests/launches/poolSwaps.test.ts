import { encodeAbiParameters, encodeEventTopics, type Hex, keccak256, parseAbiParameters, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeSwapLogs, fromRpcLog, type RawSwapLog, SWAP_TOPIC, swapEvent } from '../../lib/launches/poolSwaps.js'
import { tradeEventsOf } from '../../lib/launches/tradeEvents.js'
import { tokenPriceEth } from '../../lib/market/poolPrice.js'
import { uniswapV4Artifacts } from '../support/uniswapV4.js'

// The PoolManager's Swap logs decoded (pure), and read as the stream's trade events. The logs are encoded here from
// v4-core's own compiled ABI, so our event signature is held to the contract's.

const poolManagerAbi = uniswapV4Artifacts.poolManager().abi
const POOL = keccak256(toHex('a pool'))
const OTHER = keccak256(toHex('another pool'))
const SENDER = '0x00000000000000000000000000000000000000C1'

/** A Swap log as the PoolManager emits it, encoded by v4-core's ABI. */
function swapLog(fields: {
  id?: Hex
  amount0: bigint
  amount1: bigint
  sqrtPriceX96: bigint
  liquidity?: bigint
  tick?: number
  fee?: number
  block: bigint
  logIndex: number
  blockTimestamp?: bigint
}): RawSwapLog {
  const topics = encodeEventTopics({ abi: poolManagerAbi, eventName: 'Swap', args: { id: fields.id ?? POOL, sender: SENDER } } as never)
  const data = encodeAbiParameters(parseAbiParameters('int128, int128, uint160, uint128, int24, uint24'), [
    fields.amount0,
    fields.amount1,
    fields.sqrtPriceX96,
    fields.liquidity ?? 10n ** 20n,
    fields.tick ?? -1000,
    fields.fee ?? 10000,
  ])
  return {
    topics: topics as RawSwapLog['topics'],
    data,
    blockNumber: fields.block,
    logIndex: fields.logIndex,
    transactionHash: keccak256(toHex(`${fields.block}:${fields.logIndex}`)),
    blockTimestamp: fields.blockTimestamp,
  }
}

describe('Swap logs, decoded', () => {
  it('has the topic of v4-core’s own Swap event', () => {
    const event = poolManagerAbi.find((item) => item.type === 'event' && item.name === 'Swap')
    expect(event).toBeDefined()
    expect(SWAP_TOPIC).toBe(encodeEventTopics({ abi: [swapEvent], eventName: 'Swap' })[0])
    expect(encodeEventTopics({ abi: poolManagerAbi, eventName: 'Swap' } as never)[0]).toBe(SWAP_TOPIC)
  })

  it('reads every field, signed amounts and extreme values included, in chain order', () => {
    const max128 = 2n ** 127n - 1n
    const logs = [
      swapLog({ amount0: 5n, amount1: -7n, sqrtPriceX96: 2n ** 96n, block: 12n, logIndex: 3, blockTimestamp: 1_800_000_000n }),
      swapLog({ amount0: -max128, amount1: max128, sqrtPriceX96: 2n ** 160n - 1n, tick: 887_271, fee: 0, block: 10n, logIndex: 9 }),
      swapLog({ id: OTHER, amount0: -(2n ** 127n), amount1: 1n, sqrtPriceX96: 4295128739n, tick: -887_272, block: 12n, logIndex: 1 }),
    ]
    const swaps = decodeSwapLogs(logs)
    expect(swaps.map((s) => [s.blockNumber, s.logIndex])).toEqual([
      [10n, 9],
      [12n, 1],
      [12n, 3],
    ])
    expect(swaps[0]).toMatchObject({
      poolId: POOL,
      sender: SENDER,
      amount0: -max128,
      amount1: max128,
      sqrtPriceX96: 2n ** 160n - 1n,
      tick: 887_271,
      fee: 0,
      blockTimestamp: null,
    })
    expect(swaps[1]).toMatchObject({ poolId: OTHER, amount0: -(2n ** 127n), tick: -887_272 })
    expect(swaps[2]).toMatchObject({ amount0: 5n, amount1: -7n, liquidity: 10n ** 20n, fee: 10000, blockTimestamp: 1_800_000_000 })
  })

  it('leaves out what is not a Swap or does not decode, and reads JSON-RPC’s hex quantities', () => {
    const good = swapLog({ amount0: 1n, amount1: -1n, sqrtPriceX96: 2n ** 96n, block: 1n, logIndex: 0 })
    const notSwap = { ...good, topics: [keccak256(toHex('Other()')), ...good.topics.slice(1)] as RawSwapLog['topics'] }
    const truncated = { ...good, data: good.data.slice(0, 66) as Hex }
    const pending = { ...good, blockNumber: null }
    expect(decodeSwapLogs([notSwap, truncated, pending as unknown as RawSwapLog, good])).toHaveLength(1)
    const rpc = fromRpcLog({
      topics: good.topics as Hex[],
      data: good.data,
      blockNumber: '0x1f',
      logIndex: '0xa',
      transactionHash: good.transactionHash,
      blockTimestamp: '0x6b49d200',
    })
    expect(decodeSwapLogs([rpc])[0]).toMatchObject({ blockNumber: 31n, logIndex: 10, blockTimestamp: 0x6b49d200 })
  })

  it('makes trade events of the launches’ swaps only: side, exact amounts, the price after', () => {
    const swaps = decodeSwapLogs([
      swapLog({
        amount0: -(10n ** 17n),
        amount1: 9_900_000n * 10n ** 18n,
        sqrtPriceX96: 10_001n << 96n,
        block: 5n,
        logIndex: 0,
        blockTimestamp: 1_800_000_000n,
      }),
      swapLog({ amount0: 4_950_000_000_000_000n, amount1: -(5n * 10n ** 6n), sqrtPriceX96: 10_000n << 96n, block: 6n, logIndex: 2 }),
      swapLog({ id: OTHER, amount0: -1n, amount1: 1n, sqrtPriceX96: 2n ** 96n, block: 6n, logIndex: 3 }),
    ])
    const launches = new Map([[POOL.toLowerCase(), { token: '0x00000000000000000000000000000000000000AA', decimals: 6 }]])
    const trades = tradeEventsOf(swaps, launches)
    expect(trades).toEqual([
      {
        kind: 'trade',
        token: '0x00000000000000000000000000000000000000aa',
        poolId: POOL.toLowerCase(),
        side: 'buy',
        amountEth: '0.1',
        amountToken: '9900000000000000000', // 9.9e24 base units of 6 decimals
        priceEth: tokenPriceEth(10_001n << 96n, 6),
        txHash: swaps[0]!.txHash,
        blockNumber: '5',
        logIndex: 0,
        at: new Date(1_800_000_000_000).toISOString(),
      },
      expect.objectContaining({ side: 'sell', amountEth: '0.00495', amountToken: '5', priceEth: '0.00000000000000000001', at: null }),
    ])
  })
})
