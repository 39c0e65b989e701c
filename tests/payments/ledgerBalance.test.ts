import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type PaidDoorParts, startPaidDoorParts } from '../support/paidDoorParts.js'
import { PAID_LEDGER_FAULTS, type RunPaidLedgerReturnType, runPaidLedger } from '../support/paidLedgerRun.js'

// The paid door's books under faults: a short run of paid deploys over two instances, each deploy's first request
// meeting a fault (store or RPC calls failing, the facilitator pending, timing out or failing, its instance killed at
// a random call, a tick deciding a payment while its resend deploys it), the clients resending as the door tells them. Every payment whose USDC moved ends deployed (one
// token) or a listed credit; nothing unpaid is deployed; nothing settles twice; no Idempotency-Key pays twice.
// `npm run bench -- paid-ledger` runs 200 of them.

describe('the paid door’s ledger under faults', () => {
  let parts: PaidDoorParts
  let run: RunPaidLedgerReturnType

  beforeAll(async () => {
    const storePrefix = `balance${process.pid}-${Math.random().toString(36).slice(2, 8)}:`
    parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix })
    run = await runPaidLedger({ parts, deploys: 12, seed: 7 })
  }, 120_000)
  afterAll(async () => {
    await parts?.close()
  })

  it('meets every kind of fault: store and RPC calls failed, the facilitator’s faults, instances killed', () => {
    for (const fault of PAID_LEDGER_FAULTS) expect(run.faults[fault]).toBeGreaterThan(0)
    expect(run.injected.storeCalls).toBeGreaterThan(0)
    expect(run.injected.rpcCalls).toBeGreaterThan(0)
    expect(run.injected.kills).toBeGreaterThan(0)
    expect(run.injected.facilitator).toBeGreaterThan(0)
    expect(run.injected.tickRaces).toBeGreaterThan(0)
  })

  it('balances: every payment that moved USDC is deployed with one token or a listed credit, nothing else', () => {
    const { table } = run
    expect(run.violations).toEqual([])
    expect(table['USDC moved (AuthorizationUsed on chain)']).toBeGreaterThan(0)
    expect(table['moved → deployed'] + table['moved → credit (listed by agents -- credits)']).toBe(
      table['USDC moved (AuthorizationUsed on chain)'],
    )
    expect(table['deployed with exactly one token']).toBe(table['moved → deployed'])
    for (const [row, count] of Object.entries(table)) if (row.endsWith('(must be 0)')) expect({ row, count }).toEqual({ row, count: 0 })
  })
})
