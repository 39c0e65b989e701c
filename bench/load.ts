import { Worker } from 'node:worker_threads'

/** Parameters of {@link measureThroughput}. */
export type MeasureThroughputParameters = { url: string; connections?: number; durationMs?: number }

/** Requests per second a URL sustains over keep-alive connections, driven from a separate thread. */
export function measureThroughput({ url, connections = 32, durationMs = 3000 }: MeasureThroughputParameters): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./loadWorker.mjs', import.meta.url), { workerData: { url, connections, durationMs } })
    worker.once('message', (m: { rps: number; failed: number }) =>
      m.failed > 0 ? reject(new Error(`${m.failed} requests failed`)) : resolve(m.rps),
    )
    worker.once('error', reject)
  })
}
