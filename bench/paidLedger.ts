import { startPaidDoorParts } from '../tests/support/paidDoorParts.js'
import { runPaidLedger } from '../tests/support/paidLedgerRun.js'
import { startRedisServer } from '../tests/support/redisServer.js'

/** Deploys in the run, and its seed (the same seed draws the same faults). */
const DEPLOYS = 200
const SEED = 45

/**
 * The paid door's books under faults (`npm run bench -- paid-ledger`): 200 paid deploys over two in-process door
 * instances sharing one store, chain, KMS and facilitator, each deploy's first request meeting a fault at random (store
 * or RPC calls failing, the facilitator pending, timing out or failing, the instance killed at a random call or while
 * its settle is out), the clients resending as the door tells them, the tick reconciling. The table is counted from
 * the chain (AuthorizationUsed, B20Created, Transfers to payTo) and from the ledger (records, `agents -- credits`).
 */
export async function benchPaidLedger(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const parts = await startPaidDoorParts({ redisSocket: redis.socket, storePrefix: `paidledger${process.pid}:` })
  try {
    const from = performance.now()
    const run = await runPaidLedger({ parts, deploys: DEPLOYS, seed: SEED })
    const seconds = Math.round((performance.now() - from) / 100) / 10
    for (const violation of run.violations) console.log(`violation: ${violation}`)
    return {
      [`deploys (seed ${SEED}), by the fault their first request met`]: Object.entries(run.faults)
        .map(([fault, n]) => `${fault} ${n}`)
        .join(', '),
      'faults that took effect: store calls / RPC calls failed, kills, facilitator, ticks racing a resend': `${run.injected.storeCalls} / ${run.injected.rpcCalls}, ${run.injected.kills}, ${run.injected.facilitator}, ${run.injected.tickRaces}`,
      'clients who walked away before a deploy / ticks run': `${run.walkedAway} / ${run.ticks}`,
      ...run.table,
      violations: run.violations.length,
      'run seconds': seconds,
    }
  } finally {
    await parts.close()
    await redis.stop()
  }
}
