import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http'

// A generated barrage of hostile HTTP requests: random JSON of every type and depth, huge strings, unicode with lone
// surrogates and invalid UTF-8, prototype keys, wrong content types, missing and duplicated headers, bodies from
// empty to 1 MB, chunked bodies, every method. Seeded, so a failure can be replayed.

/** A small seeded PRNG (mulberry32). */
export function createRandom(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  return { next, int, pick }
}

type Random = ReturnType<typeof createRandom>

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(50),
  '\u202e\u200b',
  '<script>alert(1)</script>',
  "'; DROP TABLE tokens;--",
  '__proto__',
  'constructor',
  `0x${'f'.repeat(64)}`,
  `0x${'0'.repeat(40)}`,
  'NaN',
  '-0',
  '1e309',
  '%ZZ%00',
  'a'.repeat(70_000),
]
const KEYS = [
  'action',
  'name',
  'symbol',
  'variant',
  'decimals',
  'admin',
  'salt',
  'currency',
  'dryRun',
  'tx_hash',
  'waitSeconds',
  'limit',
  '__proto__',
  'constructor',
  'prototype',
  '',
]
const ACTIONS = ['agent_deploy', 'receipt', 'list_deploys', 'AGENT_DEPLOY', '', 'deploy', null, 1]

/** A random JSON value of bounded depth (never a valid deploy: a deploy-shaped object always carries an unknown field). */
export function randomJson(random: Random, depth = 0): unknown {
  const kind = random.int(depth > 4 ? 6 : 9)
  switch (kind) {
    case 0:
      return null
    case 1:
      return random.next() < 0.5
    case 2:
      return random.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, 18, 6, 25, 26, 101])
    case 3:
    case 4:
      return random.pick(NASTY_STRINGS)
    case 5:
      return random.pick(ACTIONS)
    case 6:
      return Array.from({ length: random.int(5) }, () => randomJson(random, depth + 1))
    default: {
      const object: Record<string, unknown> = {}
      for (let i = random.int(6); i > 0; i--) object[random.pick(KEYS)] = randomJson(random, depth + 1)
      if (random.next() < 0.5) object.action = random.pick(ACTIONS)
      // An unknown field keeps every deploy-shaped body invalid: the barrage must never sign anything.
      if (object.action === 'agent_deploy') object.barrage = 'never valid'
      return object
    }
  }
}

/** A deploy-looking body that is invalid on purpose (a name with a control character), so nothing may be signed. */
function nearlyValidDeploy(random: Random): unknown {
  return {
    action: 'agent_deploy',
    name: `Bad\u0007${random.int(1000)}`,
    symbol: 'BAD',
    ...(random.next() < 0.5 ? { dryRun: random.next() < 0.5 } : {}),
  }
}

/** Percent-encodes the UTF-8 bytes of `text` (lone surrogates become U+FFFD, as a browser sends them). */
const percentEncode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`))
    .join('')

/** One request of the barrage. */
export type BarrageRequest = {
  method: string
  path: string
  headers: OutgoingHttpHeaders
  body: Buffer | null
  chunked: boolean
  fresh: boolean
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW']
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  '',
  'APPLICATION/JSON',
]

/** A random body: JSON of every shape, raw garbage, invalid UTF-8, or a big one (up to 1 MB). */
function randomBody(random: Random): Buffer {
  const roll = random.next()
  if (roll < 0.45) return Buffer.from(JSON.stringify(random.next() < 0.3 ? nearlyValidDeploy(random) : randomJson(random)) ?? 'null')
  if (roll < 0.6)
    return Buffer.from(
      random.pick([
        '{',
        '}',
        '[1,',
        '{"action":',
        'null',
        '""',
        '\ufeff{}',
        '{"a":1}{"b":2}',
        '{"action":"agent_deploy","name":"x","symbol":"X",}',
      ]),
    )
  if (roll < 0.7) return Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x7d, 0xed, 0xa0, 0x80])
  if (roll < 0.75) return Buffer.alloc(0)
  if (roll < 0.8) return Buffer.alloc([17 * 1024, 300 * 1024, 1024 * 1024][random.int(3)]!, 0x61)
  const nested = '['.repeat(5000) + ']'.repeat(5000)
  return Buffer.from(random.next() < 0.5 ? nested : `{"name":"${'\\ud800'.repeat(2000)}"}`)
}

/** Parameters of {@link generateBarrage}. */
export type GenerateBarrageParameters = { seed: number; count: number; paths: readonly string[]; validKey: string }

/** The barrage itself: `count` requests over `paths`, with and without the valid key. */
export function generateBarrage({ seed, count, paths, validKey }: GenerateBarrageParameters): BarrageRequest[] {
  const random = createRandom(seed)
  return Array.from({ length: count }, () => {
    const path = random.pick(paths)
    const method = random.next() < 0.6 ? (path.includes('b20-skill') || path.includes('mcp') ? 'POST' : 'GET') : random.pick(METHODS)
    const headers: OutgoingHttpHeaders = {}
    const contentType = random.pick(CONTENT_TYPES)
    // Sometimes twice, on purpose (Node's types allow one content-type; hostile clients send what they like).
    if (contentType && random.next() < 0.9)
      (headers as Record<string, string | string[]>)['content-type'] = random.next() < 0.1 ? [contentType, 'text/plain'] : contentType
    const keyRoll = random.next()
    if (keyRoll < 0.4) headers['x-service-key'] = validKey
    else if (keyRoll < 0.5) headers['x-service-key'] = [validKey, 'second-key']
    else if (keyRoll < 0.6) headers['x-service-key'] = random.pick(['', 'x'.repeat(300), 'bcr_wrong', '\u00ff\u00fe'])
    else if (keyRoll < 0.65) headers.authorization = `Bearer ${validKey}`
    if (random.next() < 0.1) headers['idempotency-key'] = random.pick(['', 'ok-key', 'x'.repeat(200), 'tab\tkey'])
    if (random.next() < 0.1) headers['if-none-match'] = random.pick(['*', '"x"', 'W/"abc", "def"', ''.padEnd(5000, '"')])
    if (random.next() < 0.1) headers['x-forwarded-for'] = random.pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1', ''])
    if (random.next() < 0.05) headers['x-forwarded-proto'] = 'http'
    if (random.next() < 0.05) headers.accept = random.pick(['text/event-stream', '*/*', 'application/json, text/event-stream'])
    const withBody = method !== 'GET' && method !== 'HEAD' && random.next() < 0.9
    let finalPath = path
    if (path.includes('token-search')) {
      const q = random.pick([...NASTY_STRINGS.slice(0, 17), 'aero', 'x'.repeat(65), '%ZZ', '%', '%F0%9F', '+', '&q=1'])
      finalPath =
        random.next() < 0.1
          ? path
          : `${path}?q=${random.next() < 0.5 ? percentEncode(q) : q.replace(/[^\x21-\x7e]/g, '_')}${random.next() < 0.1 ? '&q=again' : ''}`
    } else if (random.next() < 0.1) {
      finalPath = `${path}?${random.pick(['x=1', 'q=%ZZ', '__proto__=1', 'a'.repeat(2000)])}`
    }
    return {
      method,
      path: finalPath,
      headers,
      body: withBody ? randomBody(random) : null,
      chunked: withBody && random.next() < 0.3,
      fresh: random.next() < 0.3,
    }
  })
}

/** What one barrage request got. */
export type BarrageAnswer =
  | { request: BarrageRequest; status: number; contentType: string | undefined; headers: string; body: string; ms: number }
  | { request: BarrageRequest; error: string; ms: number }

/** Sends the barrage against `base` with `concurrency` requests in flight, keep-alive or fresh connections as each asks. */
export async function sendBarrage(base: string, requests: BarrageRequest[], concurrency = 16): Promise<BarrageAnswer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const url = new URL(base)
  const answers: BarrageAnswer[] = new Array(requests.length)
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const index = next++
      const request = requests[index]!
      const started = Date.now()
      answers[index] = await new Promise<BarrageAnswer>((resolve) => {
        const headers = { ...request.headers }
        if (request.body && !request.chunked) headers['content-length'] = request.body.length
        const outgoing = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: request.method,
            path: request.path,
            headers,
            agent: request.fresh ? false : agent,
            timeout: 10_000,
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (c: Buffer) => chunks.push(c))
            response.on('end', () =>
              resolve({
                request,
                status: response.statusCode ?? 0,
                contentType: response.headers['content-type'],
                headers: JSON.stringify(response.headers),
                body: Buffer.concat(chunks).toString('utf8'),
                ms: Date.now() - started,
              }),
            )
            response.on('error', (e) => resolve({ request, error: e.message, ms: Date.now() - started }))
          },
        )
        outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')))
        outgoing.on('error', (e) => resolve({ request, error: e.message, ms: Date.now() - started }))
        if (request.body) {
          if (request.chunked) {
            const middle = Math.floor(request.body.length / 2)
            outgoing.write(request.body.subarray(0, middle))
            outgoing.end(request.body.subarray(middle))
          } else outgoing.end(request.body)
        } else outgoing.end()
      })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  agent.destroy()
  return answers
}
