// Load generator of the steady-load benchmark, in its own process: GET argv[2] at a fixed rate of argv[3] requests a
// second for argv[4] seconds over at most argv[5] keep-alive connections, as a fleet of dashboards polling would.
// Arrivals do not wait for answers (open loop), so a stalled server shows as latency, not as fewer requests.
// Latency is timed from the moment a request is issued (queueing for a connection included) to its last byte, in
// microseconds (autocannon only has whole milliseconds). Prints JSON: count, errors, non2xx and the percentiles in ms.
import { Agent, get } from 'node:http'

const [url, rate, seconds, connections] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 20)]
const agent = new Agent({ keepAlive: true, maxSockets: connections })
const total = Math.round(rate * seconds)
const intervalNs = 1e9 / rate
const latencies = new Float64Array(total)
let sent = 0
let done = 0
let errors = 0
let non2xx = 0

const finished = new Promise((resolve) => {
  const settle = () => ++done === total && resolve()
  const issue = () => {
    const started = process.hrtime.bigint()
    const slot = sent
    get(url, { agent }, (response) => {
      if (response.statusCode < 200 || response.statusCode > 299) non2xx++
      response.resume()
      response.on('end', () => {
        latencies[slot] = Number(process.hrtime.bigint() - started) / 1e6
        settle()
      })
    }).on('error', () => {
      errors++
      latencies[slot] = Number.NaN
      settle()
    })
  }
  const origin = process.hrtime.bigint()
  const tick = () => {
    const due = Math.min(total, Math.floor(Number(process.hrtime.bigint() - origin) / intervalNs) + 1)
    while (sent < due) {
      issue()
      sent++
    }
    if (sent < total) setTimeout(tick, 1)
  }
  tick()
})

await finished
agent.destroy()
const answered = Array.from(latencies)
  .filter((ms) => !Number.isNaN(ms))
  .sort((a, b) => a - b)
const at = (q) => answered[Math.min(answered.length - 1, Math.floor(q * answered.length))] ?? Number.NaN
const round = (ms) => Math.round(ms * 100) / 100
process.stdout.write(
  JSON.stringify({
    count: total,
    errors,
    non2xx,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    p999: round(at(0.999)),
    max: round(answered.at(-1) ?? Number.NaN),
  }),
)
