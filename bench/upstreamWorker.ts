// Runs the fake DexScreener in its own thread, so its JSON work does not count against the measured server.
import { parentPort, workerData } from 'node:worker_threads'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { createSyntheticMarket } from '../tests/support/syntheticMarket.js'

const upstream = await startFakeDexScreener(createSyntheticMarket())
upstream.setDelay((workerData as { delayMs: number }).delayMs)
parentPort!.postMessage({ url: upstream.url })
parentPort!.on('message', (m: string) => {
  if (m === 'count') parentPort!.postMessage({ count: upstream.requests.length })
  if (m === 'close') void upstream.close().then(() => process.exit(0))
})
