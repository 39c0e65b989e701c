import { once } from 'node:events'
import { Worker } from 'node:worker_threads'

/** A fake upstream running in a worker thread: its URL, how many requests it has seen, and a way to stop it. */
export type UpstreamThread = { url: string; requestCount(): Promise<number>; close(): Promise<void> }

/** Starts the fake DexScreener (synthetic market, fixed delay) in its own thread. */
export async function startUpstreamThread(delayMs: number): Promise<UpstreamThread> {
  const module = new URL('./upstreamWorker.ts', import.meta.url).href
  const worker = new Worker(new URL('./tsWorker.mjs', import.meta.url), { workerData: { delayMs, module } })
  const [{ url }] = (await once(worker, 'message')) as [{ url: string }]
  return {
    url,
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
