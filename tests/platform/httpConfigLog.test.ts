import { describe, expect, it } from 'vitest'
import { parseQuery } from '../../lib/market/search.js'
import { ConfigError, loadPublicOrigin } from '../../lib/platform/config.js'
import { matchesEtag } from '../../lib/platform/http.js'
import { createLogger, publicErrorMessage } from '../../lib/platform/log.js'
import { loadReadConfig } from '../../lib/read/config.js'
import { parseRetryAfter, UpstreamError } from '../../lib/upstream/dexscreener.js'

describe('loadPublicOrigin', () => {
  it('takes the public origin from PUBLIC_URL, else the Vercel production URL, and refuses one with a path', () => {
    expect(loadPublicOrigin({ PUBLIC_URL: 'https://svc.example/' })).toBe('https://svc.example')
    expect(loadPublicOrigin({ PUBLIC_URL: 'http://127.0.0.1:3000' })).toBe('http://127.0.0.1:3000')
    expect(loadPublicOrigin({ VERCEL_PROJECT_PRODUCTION_URL: 'svc.vercel.app' })).toBe('https://svc.vercel.app')
    expect(loadPublicOrigin({})).toBeNull()
    expect(() => loadPublicOrigin({ PUBLIC_URL: 'https://svc.example/api' })).toThrow(/PUBLIC_URL: must be an origin/)
  })
})

describe('matchesEtag', () => {
  it('matches exact, weak, listed and * validators only', () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true)
    expect(matchesEtag('W/"abc"', '"abc"')).toBe(true)
    expect(matchesEtag('"x", "abc"', '"abc"')).toBe(true)
    expect(matchesEtag('*', '"abc"')).toBe(true)
    expect(matchesEtag('"abd"', '"abc"')).toBe(false)
    expect(matchesEtag(null, '"abc"')).toBe(false)
  })
})

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000)
    expect(parseRetryAfter('0.5', 0)).toBe(500)
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 7_000)).toBe(3000)
    expect(parseRetryAfter('soon', 0)).toBeNull()
    expect(parseRetryAfter(null, 0)).toBeNull()
  })
})

describe('parseQuery', () => {
  it('trims, requires a term and caps it at 64 characters', () => {
    expect(parseQuery('  weth ')).toEqual({ ok: true, query: 'weth' })
    expect(parseQuery(null)).toEqual({ ok: false, code: 'QUERY_REQUIRED' })
    expect(parseQuery('   ')).toEqual({ ok: false, code: 'QUERY_REQUIRED' })
    expect(parseQuery('x'.repeat(64))).toEqual({ ok: true, query: 'x'.repeat(64) })
    expect(parseQuery('x'.repeat(65))).toEqual({ ok: false, code: 'QUERY_TOO_LONG' })
  })
})

describe('loadReadConfig', () => {
  it('runs on embedded defaults with no environment', () => {
    expect(loadReadConfig({})).toEqual({
      dexscreenerBaseUrl: 'https://api.dexscreener.com',
      geckoTerminalBaseUrl: 'https://api.geckoterminal.com/api/v2',
      staleIfErrorSeconds: 600,
      searchRateLimitPerMinute: 30,
      searchUpstreamRequestsPerMinute: 100,
      tokenHistoryRateLimitPerMinute: 60,
      tokenOhlcvRateLimitPerMinute: 60,
      ohlcvUpstreamRequestsPerMinute: 10,
      redis: null,
      storePrefix: 'bcr:',
      chainId: 8453,
    })
  })

  it('keeps the searches’ upstream share below the whole budget', () => {
    expect(loadReadConfig({ SEARCH_UPSTREAM_REQUESTS_PER_MINUTE: '40' }).searchUpstreamRequestsPerMinute).toBe(40)
    expect(() => loadReadConfig({ SEARCH_UPSTREAM_REQUESTS_PER_MINUTE: '250' })).toThrow(
      /SEARCH_UPSTREAM_REQUESTS_PER_MINUTE: must be at most 200/,
    )
  })

  it('turns GeckoTerminal off when GECKOTERMINAL_BASE_URL is set to empty, and refuses a URL that is not http(s)', () => {
    expect(loadReadConfig({ GECKOTERMINAL_BASE_URL: '' }).geckoTerminalBaseUrl).toBeNull()
    expect(loadReadConfig({ GECKOTERMINAL_BASE_URL: 'http://127.0.0.1:9/api/v2' }).geckoTerminalBaseUrl).toBe('http://127.0.0.1:9/api/v2')
    expect(() => loadReadConfig({ GECKOTERMINAL_BASE_URL: 'ftp://x' })).toThrow(/GECKOTERMINAL_BASE_URL/)
  })

  it('takes Upstash variables, or Vercel KV ones', () => {
    expect(loadReadConfig({ UPSTASH_REDIS_REST_URL: 'https://a.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'tok-123456789' }).redis).toEqual({
      url: 'https://a.upstash.io',
      token: 'tok-123456789',
    })
    expect(loadReadConfig({ KV_REST_API_URL: 'https://b.upstash.io', KV_REST_API_TOKEN: 'kv-123456789' }).redis).toEqual({
      url: 'https://b.upstash.io',
      token: 'kv-123456789',
    })
  })

  it('names every bad variable without printing any value', () => {
    let error: unknown
    try {
      loadReadConfig({
        DEXSCREENER_BASE_URL: 'ftp://x',
        UPSTASH_REDIS_REST_URL: 'https://a.upstash.io',
        KV_REST_API_TOKEN: 'secret-token-value',
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).toContain('DEXSCREENER_BASE_URL: must be an http(s) URL')
    expect(message).toContain('UPSTASH_REDIS_REST_TOKEN: is required when UPSTASH_REDIS_REST_URL is set')
    expect(message).toContain('KV_REST_API_URL: is required when KV_REST_API_TOKEN is set')
    expect(message).not.toContain('secret-token-value')
    expect(message).not.toContain('ftp://x')
  })
})

describe('createLogger', () => {
  it('writes one JSON line per event and scrubs the secrets it is given', () => {
    const lines: string[] = []
    const logger = createLogger({ write: (line) => lines.push(line), secrets: () => ['super-secret-token'], now: () => 0 })
    logger.warn('store_unavailable', { detail: 'failed with super-secret-token inside' })
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      event: 'store_unavailable',
      detail: 'failed with [redacted] inside',
    })
  })
})

describe('URLs that carry credentials, and error text', () => {
  it('redacts a URL variable whole, its path and query, its password and a long key segment wherever they appear', () => {
    const rpcUrl = 'https://user:pa55w0rd-0123456789@rpc.example/v2/KeyKeyKey0123456789?token=QueryToken0123456789'
    const lines: string[] = []
    const logger = createLogger({ write: (line) => lines.push(line), env: { BASE_RPC_URL: rpcUrl } })
    logger.warn('x', { a: rpcUrl })
    logger.warn('x', { a: 'GET /v2/KeyKeyKey0123456789 failed', b: 'token QueryToken0123456789', c: 'pw pa55w0rd-0123456789' })
    const text = lines.join('\n')
    for (const secret of ['KeyKeyKey0123456789', 'QueryToken0123456789', 'pa55w0rd-0123456789']) expect(text).not.toContain(secret)
    expect(text).toContain('[redacted]')
    // The origin alone carries nothing secret: it stays readable.
    logger.warn('x', { a: 'https://rpc.example' })
    expect(lines.at(-1)).toContain('https://rpc.example')
  })

  it('redacts every credential of the environment the services were built from, whichever side reads which', () => {
    const env = {
      BASE_RPC_URL: 'https://base.example/v2/RpcKeyOnlyDeployReads0123',
      CRON_SECRET: 'cron-secret-only-the-tick-reads',
      QSTASH_CURRENT_SIGNING_KEY: 'sig_only-the-tick-reads-0123',
      AWS_SECRET_ACCESS_KEY: 'aws/secret+read-by-the-sdk-alone',
    }
    const lines: string[] = []
    // The read side reads none of these itself; a logger built for its environment scrubs them all the same.
    createLogger({ write: (line) => lines.push(line), env }).error('x', { a: Object.values(env).join(' and ') })
    for (const secret of Object.values(env)) expect(lines.join('\n')).not.toContain(secret)
    expect(lines.join('\n')).toContain('[redacted]')
  })

  it('accumulates nothing: a configuration loaded from another environment adds nothing to what the process’s logger scrubs', () => {
    loadReadConfig({ CRON_SECRET: 'another-environments-cron-secret' })
    const lines: string[] = []
    createLogger({ write: (line) => lines.push(line) }).error('x', { a: 'another-environments-cron-secret' })
    expect(lines.join('\n')).toContain('another-environments-cron-secret')
  })

  it('lets only viem’s shortMessage or the short message of the service’s own errors into answers and logs', () => {
    const viemLike = Object.assign(new Error('HTTP request failed.\n\nURL: https://rpc.example/v2/key'), {
      shortMessage: 'HTTP request failed.',
    })
    expect(publicErrorMessage(viemLike)).toBe('HTTP request failed.')
    expect(publicErrorMessage(new Error('connect ECONNREFUSED https://rpc.example/v2/key'))).toBeUndefined()
    expect(publicErrorMessage(new UpstreamError('upstream /x timed out', 'timeout'))).toBe('upstream /x timed out')
    // A flag on a foreign error no longer makes its message public: only the service's own errors' are.
    expect(publicErrorMessage(Object.assign(new Error('https://rpc.example/v2/key'), { messageIsPublic: true }))).toBeUndefined()
    expect(publicErrorMessage('a string')).toBeUndefined()
  })
})
