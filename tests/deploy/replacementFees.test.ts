import { parseGwei } from 'viem'
import { describe, expect, it } from 'vitest'
import { MIN_PRIORITY_FEE, replacementFees } from '../../lib/deploy/sender/fees.js'

const cap = parseGwei('5')

describe('replacementFees', () => {
  it('raises both fees by at least 12.5 %, rounding up, and keeps headroom for the base fee under the cap', () => {
    const next = replacementFees({
      previous: { maxFeePerGas: 1001n * 10n ** 6n, maxPriorityFeePerGas: 1_000_001n },
      nextBaseFee: 100n,
      suggestedPriorityFee: 0n,
      cap,
    })
    expect(next).toEqual({ ok: true, maxFeePerGas: 1_126_125_000n, maxPriorityFeePerGas: 1_125_002n })
  })

  it('pays at least what the next base fee needs, twice it when the cap allows', () => {
    const previous = { maxFeePerGas: parseGwei('0.2'), maxPriorityFeePerGas: MIN_PRIORITY_FEE }
    const calm = replacementFees({ previous, nextBaseFee: parseGwei('1'), suggestedPriorityFee: 0n, cap })
    expect(calm).toEqual({ ok: true, maxFeePerGas: parseGwei('2') + 1_125_000n, maxPriorityFeePerGas: 1_125_000n })
    // 2 x base would pass the cap, base + priority does not: the cap itself is offered.
    const spike = replacementFees({ previous, nextBaseFee: parseGwei('4'), suggestedPriorityFee: parseGwei('0.01'), cap })
    expect(spike).toEqual({ ok: true, maxFeePerGas: cap, maxPriorityFeePerGas: parseGwei('0.01') })
  })

  it('follows the network priority fee when it is above the bump', () => {
    const next = replacementFees({
      previous: { maxFeePerGas: parseGwei('1'), maxPriorityFeePerGas: MIN_PRIORITY_FEE },
      nextBaseFee: 0n,
      suggestedPriorityFee: parseGwei('0.3'),
      cap,
    })
    expect(next).toMatchObject({ ok: true, maxPriorityFeePerGas: parseGwei('0.3'), maxFeePerGas: parseGwei('1.125') })
  })

  it('refuses, naming the fee needed, when even the least replacement passes the cap', () => {
    expect(
      replacementFees({
        previous: { maxFeePerGas: parseGwei('4.5'), maxPriorityFeePerGas: MIN_PRIORITY_FEE },
        nextBaseFee: 0n,
        suggestedPriorityFee: 0n,
        cap,
      }),
    ).toEqual({
      ok: false,
      code: 'ABOVE_FEE_CAP',
      neededMaxFeePerGas: parseGwei('5.0625'),
    })
    expect(
      replacementFees({
        previous: { maxFeePerGas: parseGwei('1'), maxPriorityFeePerGas: MIN_PRIORITY_FEE },
        nextBaseFee: parseGwei('6'),
        suggestedPriorityFee: 0n,
        cap,
      }),
    ).toEqual({
      ok: false,
      code: 'ABOVE_FEE_CAP',
      neededMaxFeePerGas: parseGwei('6') + 1_125_000n,
    })
  })
})
