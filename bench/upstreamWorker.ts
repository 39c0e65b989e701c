// Runs the fake upstreams in their own thread, so their JSON work does not count against the measured service.
import { parentPort, workerData } from 'node:worker_threads'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startFakeGeckoTerminal } from '../tests/support/fakeGeckoTerminal.js'
import { createLongTailMarket, createSyntheticMarket } from '../tests/support/syntheticMarket.js'

const { delayMs, market: kind, gecko: withGecko } = workerData as { delayMs: number; market?: 'synthetic' | 'long-tail'; gecko?: boolean }
const market = kind === 'long-tail' ? createLongTailMarket() : createSyntheticMarket()
const upstream = await startFakeDexScreener(market)
upstream.setDelay(delayMs)
const gecko = withGecko ? await startFakeGeckoTerminal(market) : null
parentPort!.postMessage({ url: upstream.url, geckoUrl: gecko?.url ?? null })
parentPort!.on('message', (m: string) => {
  if (m === 'count') parentPort!.postMessage({ count: upstream.requests.length })
  if (m === 'close') void Promise.all([upstream.close(), gecko?.close()]).then(() => process.exit(0))
})
