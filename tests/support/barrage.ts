import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http'

// A generated barrage of hostile HTTP requests: random JSON of every type and depth, huge strings, unicode with lone
// surrogates and invalid UTF-8, prototype keys, wrong content types, missing, duplicated and oversized headers, bodies
// from empty to 1 MB, chunked bodies, every method, from many client addresses (IPv4 and IPv6, as a trusted proxy
// names them in X-Forwarded-For). Seeded, so a failure can be replayed.

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

/**
 * A few clients that come back again and again (so per-client limits trip), two of them in one IPv6 /64 (which counts
 * as one client).
 */
const REGULAR_CLIENTS = ['198.51.100.7', '203.0.113.99', '2001:db8:aa::1', '2001:db8:aa::2', '::ffff:192.0.2.1', '10.0.0.1']

/** A client address as a proxy names it in `X-Forwarded-For`: a regular, a new IPv4 or IPv6 one, or garbage. */
function randomClientAddress(random: Random): string {
  const roll = random.next()
  const byte = () => random.int(256)
  const group = () => random.int(0x10000).toString(16)
  if (roll < 0.35) return random.pick(REGULAR_CLIENTS)
  if (roll < 0.65) return `${byte()}.${byte()}.${byte()}.${byte()}`
  if (roll < 0.9) return `2001:db8:${group()}:${group()}::${group()}`
  return random.pick(['garbage', '', 'unknown', '999.1.1.1', '[2001:db8::1]', '1.2.3.4:5678', `${'1.'.repeat(600)}1`])
}

/** Node's own client sends a body of these methods unframed (no chunked encoding by default). */
const UNFRAMED_BODY_METHODS = new Set(['DELETE', 'OPTIONS', 'TRACE'])

/**
 * True for a request Node cannot parse as HTTP: a method it does not know, headers past its 16 KB, or a body sent
 * unframed, whose bytes read as the next request. Such a request goes on a connection of its own: on a kept-alive one
 * it may arrive while the last response is still finishing, and then no server can tell its bytes from the rest of
 * the last request; the connection closes after that response with no second answer, as Node's own handler does.
 */
function unparseable(method: string, headers: OutgoingHttpHeaders, chunked: boolean): boolean {
  return method === 'BREW' || String(headers['x-padding'] ?? '').length > 16 * 1024 || (chunked && UNFRAMED_BODY_METHODS.has(method))
}

/** Parameters of {@link generateBarrage}. */
export type GenerateBarrageParameters = {
  seed: number
  count: number
  paths: readonly string[]
  validKey: string
  /** Other bearer tokens the service honours (the tick's, health's); sent now and then, right or not. */
  bearers?: readonly string[]
  /** Token addresses the service knows, so that some `token-history` and `token-ohlcv` requests reach real work. */
  knownAddresses?: readonly string[]
}

/** The path's natural method: what most of its requests use, so the barrage reaches the work behind each path. */
const naturalMethod = (path: string) => (path.includes('b20-skill') || path.includes('mcp') ? 'POST' : 'GET')

/** The barrage itself: `count` requests over `paths`, with and without the valid key, from many client addresses. */
export function generateBarrage({
  seed,
  count,
  paths,
  validKey,
  bearers = [],
  knownAddresses = [],
}: GenerateBarrageParameters): BarrageRequest[] {
  const random = createRandom(seed)
  return Array.from({ length: count }, () => {
    const path = random.pick(paths)
    const method = random.next() < 0.6 ? naturalMethod(path) : random.pick(METHODS)
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
    else if (keyRoll < 0.75 && bearers.length > 0)
      headers.authorization = `Bearer ${random.next() < 0.7 ? random.pick(bearers) : 'wrong-bearer-0123456789'}`
    if (random.next() < 0.1) headers['idempotency-key'] = random.pick(['', 'ok-key', 'x'.repeat(200), 'tab\tkey'])
    if (random.next() < 0.1) headers['if-none-match'] = random.pick(['*', '"x"', 'W/"abc", "def"', ''.padEnd(5000, '"')])
    // Most requests come from somewhere else: one address, or a chain whose last entry is the client's.
    const forwardRoll = random.next()
    if (forwardRoll < 0.7) headers['x-forwarded-for'] = randomClientAddress(random)
    else if (forwardRoll < 0.85) headers['x-forwarded-for'] = `${randomClientAddress(random)}, ${randomClientAddress(random)}`
    if (random.next() < 0.05) headers['x-forwarded-proto'] = 'http'
    if (random.next() < 0.05) headers.accept = random.pick(['text/event-stream', '*/*', 'application/json, text/event-stream'])
    if (random.next() < 0.05) headers['last-event-id'] = random.pick(['', 'unknown', '"quoted"', 'x'.repeat(300), '\u00ff'])
    // Past 16 KB Node refuses the headers with a JSON 400, whose body a HEAD client does not expect: never with HEAD.
    if (method !== 'HEAD' && random.next() < 0.02) headers['x-padding'] = 'p'.repeat(random.pick([8_000, 20_000]))
    const withBody = method !== 'GET' && method !== 'HEAD' && random.next() < 0.9
    const chunked = withBody && random.next() < 0.3
    let finalPath = path
    if (path.includes('token-search')) {
      const q = random.pick([...NASTY_STRINGS.slice(0, 17), 'aero', 'x'.repeat(65), '%ZZ', '%', '%F0%9F', '+', '&q=1'])
      finalPath =
        random.next() < 0.1
          ? path
          : `${path}?q=${random.next() < 0.5 ? percentEncode(q) : q.replace(/[^\x21-\x7e]/g, '_')}${random.next() < 0.1 ? '&q=again' : ''}`
    } else if (path.includes('token-history') && random.next() < 0.9) {
      const address = random.pick([
        ...knownAddresses,
        ...knownAddresses,
        `0x${'0'.repeat(40)}`,
        `0x${'F'.repeat(40)}`,
        '0x4200000000000000000000000000000000000006',
        '0x123',
        `0x${'g'.repeat(40)}`,
        '',
        '%ZZ',
        '__proto__',
        `0x${'a'.repeat(4000)}`,
      ])
      finalPath = `${path}?address=${address}${random.next() < 0.1 ? '&address=again' : ''}`
    } else if (path.includes('token-ohlcv') && random.next() < 0.9) {
      const address = random.pick([...knownAddresses, ...knownAddresses, `0x${'0'.repeat(40)}`, '0x123', '', '%ZZ', `0x${'a'.repeat(64)}`])
      const more = random.pick([
        '',
        '&timeframe=minute&aggregate=5',
        '&timeframe=day',
        '&timeframe=hour&aggregate=4&limit=1000',
        '&timeframe=week',
        '&aggregate=7',
        '&limit=0',
        '&limit=1001',
        '&before_timestamp=1600000000',
        '&before_timestamp=-1',
        '&currency=token',
        '&currency=eur',
        '&limit=5&limit=6',
      ])
      finalPath = `${path}?address=${address}${more}`
    } else if (path.includes('launches') && random.next() < 0.5) {
      finalPath = `${path}?${random.pick(['limit=1', 'limit=100', 'limit=0', 'limit=x', 'cursor=l1.AAAA', `cursor=l1.${'A'.repeat(300)}`, 'cursor=%ZZ', 'limit=5&limit=6'])}`
    } else if (random.next() < 0.1) {
      finalPath = `${path}?${random.pick(['x=1', 'q=%ZZ', '__proto__=1', 'a'.repeat(2000)])}`
    }
    return {
      method,
      path: finalPath,
      headers,
      body: withBody ? randomBody(random) : null,
      chunked,
      fresh: random.next() < 0.3 || unparseable(method, headers, chunked),
    }
  })
}

/** What one barrage request got (of an event stream, which never ends by itself, the first chunk as its body). */
export type BarrageAnswer =
  | {
      request: BarrageRequest
      status: number
      contentType: string | undefined
      /** The `Allow` header, if any. */
      allow: string | undefined
      headers: string
      body: string
      ms: number
    }
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
            const answer = () =>
              resolve({
                request,
                status: response.statusCode ?? 0,
                contentType: response.headers['content-type'],
                allow: response.headers.allow,
                headers: JSON.stringify(response.headers),
                body: Buffer.concat(chunks).toString('utf8'),
                ms: Date.now() - started,
              })
            // An open event stream sends its head at once and then stays open: its first chunk is the answer, and the
            // client leaves, as a closed browser tab does.
            const stream = response.headers['content-type']?.startsWith('text/event-stream') === true
            response.on('data', (c: Buffer) => {
              chunks.push(c)
              if (!stream) return
              answer()
              response.destroy()
            })
            response.on('end', answer)
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
