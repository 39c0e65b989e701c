// The yardstick of the read-API benchmark: a bare node:http server in its own process that sends the very bytes the
// service sent (status, headers and body of its 200 and of its 304, captured from it and read from the JSON file in
// argv[2]), choosing the 304 for a matching If-None-Match. What it costs is Node's HTTP alone. Prints its URL.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const { etag, ok, notModified } = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const body = Buffer.from(ok.body, 'base64')
const server = createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, notModified.headers)
    return void res.end()
  }
  res.writeHead(200, ok.headers)
  res.end(body)
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
process.on('SIGTERM', () => process.exit(0))
