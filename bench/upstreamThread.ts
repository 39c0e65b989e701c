import { once } from 'node:events'
import { Worker } from 'node:worker_threads'

/** A fake upstream running in a worker thread: its URL, how many requests it has seen, and a way to stop it. */
export type UpstreamThread = { url: string; geckoUrl: string | null; requestCount(): Promise<number>; close(): Promise<void> }

/** Which market the fake upstreams serve, and whether a GeckoTerminal-shaped server runs beside DexScreener's. */
export type UpstreamThreadOptions = { market?: 'synthetic' | 'long-tail'; gecko?: boolean }

/** Starts the fake DexScreener (fixed delay), and optionally the fake GeckoTerminal, in their own thread. */
export async function startUpstreamThread(delayMs: number, options: UpstreamThreadOptions = {}): Promise<UpstreamThread> {
  const module = new URL('./upstreamWorker.ts', import.meta.url).href
  const worker = new Worker(new URL('./tsWorker.mjs', import.meta.url), { workerData: { delayMs, module, ...options } })
  const [{ url, geckoUrl }] = (await once(worker, 'message')) as [{ url: string; geckoUrl: string | null }]
  return {
    url,
    geckoUrl,
    requestCount: async () => {
      worker.postMessage('count')
      const [{ count }] = (await once(worker, 'message')) as [{ count: number }]
      return count
    },
    close: async () => {
      worker.postMessage('close')
      await once(worker, 'exit')
    },
  }
}
