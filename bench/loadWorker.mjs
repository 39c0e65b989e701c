// Load generator run in its own thread, so it does not share the measured server's event loop.
import { Agent, request } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'

const { url, connections, durationMs } = workerData
const agent = new Agent({ keepAlive: true, maxSockets: connections })
const deadline = Date.now() + durationMs
let done = 0
let failed = 0
const one = () =>
  new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      res.on('data', () => undefined)
      res.on('end', () => {
        if (res.statusCode !== 200) failed++
        resolve()
      })
    })
    req.on('error', () => {
      failed++
      resolve()
    })
    req.end()
  })
const started = Date.now()
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (Date.now() < deadline) {
      await one()
      done++
    }
  }),
)
agent.destroy()
parentPort.postMessage({ rps: done / ((Date.now() - started) / 1000), failed })
