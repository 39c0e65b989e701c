import { benchColdStart } from './coldStart.js'
import { benchDashboard } from './dashboard.js'
import { benchDeploy } from './deploy.js'
import { benchDeployLatency } from './deployLatency.js'
import { benchOhlcv } from './ohlcv.js'
import { benchPaidDeploy } from './paidDeploy.js'
import { benchPaidFlood } from './paidFlood.js'
import { benchPaidLedger } from './paidLedger.js'
import { benchPooledDeploy } from './pooledDeploy.js'
import { benchReadApi, benchWarmThroughput } from './readApi.js'
import { benchReadFreshness, benchRefresh, benchSteadyLoad } from './readFreshness.js'
import { type BenchRun, regenerateBenchmarkTables, saveRun } from './report.js'
import { benchStoreCost } from './storeCost.js'
import { benchStream } from './stream.js'
import { startUpstreamThread } from './upstreamThread.js'

/** Runs every benchmark (or those named on the command line) and prints their figures and ratios. */
const benches: Record<string, () => Promise<Record<string, number | string>>> = {
  'read-api': async () => ({ ...(await benchReadApi()), ...(await benchReadFreshness()) }),
  refresh: benchRefresh,
  steady: benchSteadyLoad,
  deploy: benchDeploy,
  'deploy-latency': benchDeployLatency,
  'paid-deploy': benchPaidDeploy,
  'paid-ledger': benchPaidLedger,
  'paid-flood': benchPaidFlood,
  'pooled-deploy': benchPooledDeploy,
  'cold-start': benchColdStart,
  dashboard: benchDashboard,
  'store-cost': benchStoreCost,
  stream: benchStream,
  ohlcv: benchOhlcv,
  warm: async () => {
    const upstream = await startUpstreamThread(0)
    try {
      return await benchWarmThroughput(upstream.url)
    } finally {
      await upstream.close()
    }
  },
}

const wanted = process.argv.slice(2)
if (wanted.includes('readme')) {
  // Rewrites the tables of docs/benchmarks.md from the two kept full runs, without running anything.
  console.log(
    regenerateBenchmarkTables()
      ? 'docs/benchmarks.md: tables regenerated'
      : 'docs/benchmarks.md: two full runs are needed first (npm run bench, twice)',
  )
  process.exit(0)
}
const figures: BenchRun['figures'] = {}
for (const [name, run] of Object.entries(benches)) {
  // read-api includes refresh and steady; warm and ohlcv run on demand only (their figures are in docs/benchmarks.md's
  // prose), as do paid-ledger (a correctness run: its table is in docs/payments.md), pooled-deploy and paid-flood
  // (docs/benchmarks.md).
  if (
    wanted.length
      ? !wanted.includes(name)
      : ['refresh', 'steady', 'warm', 'ohlcv', 'paid-ledger', 'pooled-deploy', 'paid-flood'].includes(name)
  )
    continue
  console.log(`\n## ${name}`)
  figures[name] = await run()
  for (const [label, value] of Object.entries(figures[name]!)) console.log(`${label.padEnd(48)} ${value}`)
}
if (wanted.length === 0) {
  // A full run is kept; with the one before it, it regenerates docs/benchmarks.md's tables (two runs, never retyped).
  saveRun({ finishedAt: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`, node: process.version, figures })
  console.log(
    regenerateBenchmarkTables()
      ? '\ndocs/benchmarks.md: tables regenerated from this run and the one before'
      : '\nkept in bench/results/latest.json; run again to regenerate the tables of docs/benchmarks.md',
  )
}
