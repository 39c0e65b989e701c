// Load generator of the search-flood benchmark, in its own process: argv[3] clients each search distinct terms back
// to back against argv[2] for argv[4] ms. Prints {ok, limited, other}.
const [base, clients, durationMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const deadline = Date.now() + durationMs
const counts = { ok: 0, limited: 0, other: 0 }
let n = 0
await Promise.all(
  Array.from({ length: clients }, async (_, c) => {
    while (Date.now() < deadline) {
      try {
        const response = await fetch(`${base}/api/token-search?q=flood${c}x${n++}`)
        await response.arrayBuffer()
        if (response.status === 200) counts.ok++
        else if (response.status === 429) counts.limited++
        else counts.other++
      } catch {
        counts.other++
      }
    }
  }),
)
process.stdout.write(JSON.stringify(counts))
