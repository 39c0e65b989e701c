// Load from many clients, as a public endpoint sees it: autocannon (its own process), each request from another
// client address (X-Forwarded-For, read by npm start with TRUST_PROXY=1), so a per-client throttle counts each client's
// few requests, not one client's thousands. Prints one JSON line: req/s, latency, errors, non-2xx.
// Usage: node bench/manyClients.mjs <url> <seconds> <connections>
import autocannon from 'autocannon'

const [url, seconds = '5', connections = '50'] = process.argv.slice(2)
let client = 0
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      setupRequest: (request) => {
        client = (client + 1) % 16_000_000
        const address = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`
        return { ...request, headers: { ...request.headers, 'x-forwarded-for': address } }
      },
    },
  ],
})
process.stdout.write(
  `${JSON.stringify({ rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx })}\n`,
)
