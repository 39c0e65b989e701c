import { benchColdStart } from './coldStart.js'
import { benchDeploy } from './deploy.js'
import { benchReadApi } from './readApi.js'
import { benchReadFreshness, benchRefresh, benchSteadyLoad } from './readFreshness.js'
import { regenerateReadme, saveRun, type BenchRun } from './report.js'

/** Runs every benchmark (or those named on the command line) and prints their figures and ratios. */
const benches: Record<string, () => Promise<Record<string, number | string>>> = {
  'read-api': async () => ({ ...(await benchReadApi()), ...(await benchReadFreshness()) }),
  refresh: benchRefresh,
  steady: benchSteadyLoad,
  deploy: benchDeploy,
  'cold-start': benchColdStart,
}

const wanted = process.argv.slice(2)
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length ? !wanted.includes(name) : name === 'refresh' || name === 'steady') continue // read-api includes both
  console.log(`\n## ${name}`)
  for (const [label, value] of Object.entries(await run())) console.log(`${label.padEnd(48)} ${value}`)
}
