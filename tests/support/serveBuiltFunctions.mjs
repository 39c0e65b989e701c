// Serves built functions over HTTP, as Vercel's edge and Node runtime do in front of a deployment: argv[2] is JSON
// { "<path>": "<.func directory>" }; each function's handler (named in its .vc-config.json) gets the requests to its
// path as Web Requests, with x-real-ip set from the connection as Vercel's edge sets it. Prints {"url": ...} once it
// listens. One process is one instance: two such processes over one store are two instances of a deployment.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const routes = {}
for (const [path, dir] of Object.entries(JSON.parse(process.argv[2]))) {
  const config = JSON.parse(readFileSync(join(dir, '.vc-config.json'), 'utf8'))
  const module = await import(pathToFileURL(join(dir, config.handler)).href)
  if (typeof module.default?.fetch !== 'function') throw new Error(`${config.handler} has no default { fetch } export`)
  routes[path] = module.default.fetch
}

const server = createServer(async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const url = new URL(req.url, 'https://built.test')
  const handler = routes[url.pathname]
  if (!handler) {
    res.writeHead(404, { 'content-type': 'application/json' })
    return res.end('{"error":"not found","code":"NOT_FOUND"}')
  }
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value)
  headers.set('x-real-ip', req.socket.remoteAddress ?? '')
  const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : null
  const response = await handler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }))
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`)
})
