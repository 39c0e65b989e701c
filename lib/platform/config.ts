import { z } from 'zod'
import { BaseError } from './errors.js'
import { errorName, type Logger, processLogger, registerEnvironmentSecrets } from './log.js'
import { perInstance } from './perInstance.js'

/** The environment could not be turned into a configuration; the message names each variable and what is wrong. */
export class ConfigError extends BaseError<'CONFIG_INVALID'> {
  override name = 'ConfigError'
  constructor(message: string) {
    super(message, { code: 'CONFIG_INVALID' })
  }
}

/**
 * Tells the operator why a handler could not start: a `config_invalid` line with the message (it names the
 * variables and what is wrong with them, never their values), or `config_failed` with the error's name.
 */
export function logConfigFailure(handler: string, error: unknown, logger: Logger = processLogger()): void {
  if (error instanceof ConfigError) logger.error('config_invalid', { handler, message: error.message })
  else logger.error('config_failed', { handler, error: errorName(error) })
}

/** The environment variables this service reads. */
export type Environment = Record<string, string | undefined>

/** Configuration of the read endpoints. */
export type ReadConfig = {
  dexscreenerBaseUrl: string
  /** GeckoTerminal API root (discovery and failover), or null when set to empty (off). */
  geckoTerminalBaseUrl: string | null
  /** Up to what age the last good body is served when a refresh is due or failing. */
  staleIfErrorSeconds: number
  /** `token-search` requests a client may make per minute before 429. */
  searchRateLimitPerMinute: number
  /** DexScreener requests a minute that anonymous searches may take, service-wide, of the 250 (the rest is the refresh's). */
  searchUpstreamRequestsPerMinute: number
  /** `token-history` requests a client may make per minute before 429. */
  tokenHistoryRateLimitPerMinute: number
  /** `token-ohlcv` requests a client may make per minute before 429. */
  tokenOhlcvRateLimitPerMinute: number
  /** GeckoTerminal calls a minute that candle requests may take, service-wide, of its 30 (discovery and failover keep the rest). */
  ohlcvUpstreamRequestsPerMinute: number
  /** Upstash REST endpoint and token, or null for the in-process store. */
  redis: { url: string; token: string } | null
  /** Prefix of every key this service writes to the shared store. */
  storePrefix: string
}

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)
/** A variable that may be unset or blank (read as unset). */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional())
/** An http(s) URL. */
export const httpUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const u = new URL(v)
      return u.protocol === 'http:' || u.protocol === 'https:'
    } catch {
      return false
    }
  }, 'must be an http(s) URL')

/** A rule between variables; answers problems as `NAME: reason`. */
export type CrossCheck = (env: Environment) => string[]

/**
 * Parses with `schema` and the cross-variable `checks` (run even when single variables failed, so one message lists
 * everything), naming variables, never their values (they may be secrets).
 */
export function parseWith<T extends z.ZodType>(schema: T, env: Environment, what: string, checks: CrossCheck[] = []): z.infer<T> {
  // Whichever loader runs, every credential of this environment is known to the logs' redaction from now on.
  registerEnvironmentSecrets(env)
  const result = schema.safeParse(env)
  const present: Environment = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string' && v.trim() !== ''))
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`)),
    ...checks.flatMap((check) => check(present)),
  ]
  if (problems.length === 0 && result.success) return result.data
  throw new ConfigError(`Invalid ${what} configuration: ${problems.join('; ')}`)
}

/** The shared store's variables, which every use case reads. */
export const storeFields = {
  UPSTASH_REDIS_REST_URL: optional(httpUrl),
  UPSTASH_REDIS_REST_TOKEN: optional(z.string()),
  KV_REST_API_URL: optional(httpUrl),
  KV_REST_API_TOKEN: optional(z.string()),
  STORE_KEY_PREFIX: optional(z.string().regex(/^[A-Za-z0-9:_-]{1,32}$/, 'must be 1-32 of A-Z a-z 0-9 : _ -')).default('bcr:'),
}

type StoreEnv = { UPSTASH_REDIS_REST_URL?: string; UPSTASH_REDIS_REST_TOKEN?: string; KV_REST_API_URL?: string; KV_REST_API_TOKEN?: string }

/** Each store URL needs its token, and each token its URL. */
export const checkStorePairs: CrossCheck = (env) => {
  const problems: string[] = []
  for (const [url, token] of [
    ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'],
    ['KV_REST_API_URL', 'KV_REST_API_TOKEN'],
  ] as const) {
    if (env[url] && !env[token]) problems.push(`${token}: is required when ${url} is set`)
    if (!env[url] && env[token]) problems.push(`${url}: is required when ${token} is set`)
  }
  return problems
}

/** The Upstash REST endpoint and token the variables name, or null for the in-process store. */
export function storeConfig(env: StoreEnv): { url: string; token: string } | null {
  const url = env.UPSTASH_REDIS_REST_URL ?? env.KV_REST_API_URL
  const token = env.UPSTASH_REDIS_REST_URL ? env.UPSTASH_REDIS_REST_TOKEN : env.KV_REST_API_TOKEN
  return url && token ? { url, token } : null
}

/** A whole number of at least `min`. */
export const wholeNumber = (min: number) => z.coerce.number().int(`must be a whole number`).min(min, `must be at least ${min}`)

const readSchema = z.object({
  DEXSCREENER_BASE_URL: optional(httpUrl).default('https://api.dexscreener.com'),
  // Unset: the public API; set to empty: no GeckoTerminal (discovery and failover off).
  GECKOTERMINAL_BASE_URL: z.union([z.literal(''), httpUrl]).optional(),
  STALE_IF_ERROR_SECONDS: optional(wholeNumber(0)).default(600),
  SEARCH_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(30),
  SEARCH_UPSTREAM_REQUESTS_PER_MINUTE: optional(wholeNumber(1).max(200, 'must be at most 200 (the refresh needs the rest of 250)')).default(
    100,
  ),
  TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(60),
  TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(60),
  OHLCV_UPSTREAM_REQUESTS_PER_MINUTE: optional(
    wholeNumber(1).max(20, 'must be at most 20 (discovery and the failover need the rest of GeckoTerminal’s 30)'),
  ).default(10),
  ...storeFields,
})

/** Parses the read endpoints' configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadReadConfig(env: Environment = process.env): ReadConfig {
  const parsed = parseWith(readSchema, env, 'read API', [checkStorePairs])
  // A proxy in front of an upstream may carry its key in the URL.
  return {
    dexscreenerBaseUrl: parsed.DEXSCREENER_BASE_URL,
    geckoTerminalBaseUrl:
      parsed.GECKOTERMINAL_BASE_URL === undefined
        ? 'https://api.geckoterminal.com/api/v2'
        : parsed.GECKOTERMINAL_BASE_URL.trim() === ''
          ? null
          : parsed.GECKOTERMINAL_BASE_URL.trim(),
    staleIfErrorSeconds: parsed.STALE_IF_ERROR_SECONDS,
    searchRateLimitPerMinute: parsed.SEARCH_RATE_LIMIT_PER_MINUTE,
    searchUpstreamRequestsPerMinute: parsed.SEARCH_UPSTREAM_REQUESTS_PER_MINUTE,
    tokenHistoryRateLimitPerMinute: parsed.TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE,
    tokenOhlcvRateLimitPerMinute: parsed.TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE,
    ohlcvUpstreamRequestsPerMinute: parsed.OHLCV_UPSTREAM_REQUESTS_PER_MINUTE,
    redis: storeConfig(parsed),
    storePrefix: parsed.STORE_KEY_PREFIX,
  }
}

/** Configuration of `/api/health`. */
export type HealthConfig = {
  /** Bearer token of the detailed view; null: the detailed view is off. */
  healthToken: string | null
  /** Below this signer balance (in wei) the detailed view flags `lowBalance`. */
  signerMinBalanceWei: bigint
}

const healthSchema = z.object({
  HEALTH_TOKEN: optional(
    z.string().trim().min(16, 'must be at least 16 characters (use a random token)').max(256, 'must be at most 256 characters'),
  ),
  SIGNER_MIN_BALANCE_ETH: optional(z.coerce.number({ error: 'must be a number of ETH' }).min(0, 'must be at least 0')).default(0.01),
})

/** Parses `/api/health`'s configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadHealthConfig(env: Environment = process.env): HealthConfig {
  const parsed = parseWith(healthSchema, env, 'health')
  return {
    healthToken: parsed.HEALTH_TOKEN ?? null,
    signerMinBalanceWei: BigInt(Math.round(parsed.SIGNER_MIN_BALANCE_ETH * 1e9)) * 10n ** 9n,
  }
}

/** Configuration of the scheduled tick (`/api/tick` and the in-process ticker). */
export type TickConfig = {
  /** Vercel Cron's bearer secret (`CRON_SECRET`); null: Vercel Cron cannot call the tick. */
  cronSecret: string | null
  /** QStash's current and next signing keys; null: QStash cannot call the tick. */
  qstash: { currentSigningKey: string; nextSigningKey: string } | null
  /** Seconds between ticks of the in-process ticker of `npm start` and the sandbox (0: off); also the tick's claim. */
  intervalSeconds: number
  /** The service's public origin (`PUBLIC_URL`): a QStash signature must name `<origin>/api/tick`; null: QStash is refused. */
  publicOrigin: string | null
}

const tickSchema = z.object({
  CRON_SECRET: optional(
    z.string().trim().min(16, 'must be at least 16 characters (use a random secret)').max(512, 'must be at most 512 characters'),
  ),
  QSTASH_CURRENT_SIGNING_KEY: optional(z.string().trim().min(16, 'must be at least 16 characters')),
  QSTASH_NEXT_SIGNING_KEY: optional(z.string().trim().min(16, 'must be at least 16 characters')),
  TICK_INTERVAL_SECONDS: optional(wholeNumber(0).max(3600, 'must be at most 3600')).default(60),
})

const checkQstashPair: CrossCheck = (env) => {
  if (env.QSTASH_CURRENT_SIGNING_KEY && !env.QSTASH_NEXT_SIGNING_KEY)
    return ['QSTASH_NEXT_SIGNING_KEY: is required when QSTASH_CURRENT_SIGNING_KEY is set (QStash gives both)']
  if (!env.QSTASH_CURRENT_SIGNING_KEY && env.QSTASH_NEXT_SIGNING_KEY)
    return ['QSTASH_CURRENT_SIGNING_KEY: is required when QSTASH_NEXT_SIGNING_KEY is set (QStash gives both)']
  return []
}

/** Parses the tick's configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadTickConfig(env: Environment = process.env): TickConfig {
  const parsed = parseWith(tickSchema, env, 'tick', [checkQstashPair])
  return {
    cronSecret: parsed.CRON_SECRET ?? null,
    qstash:
      parsed.QSTASH_CURRENT_SIGNING_KEY && parsed.QSTASH_NEXT_SIGNING_KEY
        ? { currentSigningKey: parsed.QSTASH_CURRENT_SIGNING_KEY, nextSigningKey: parsed.QSTASH_NEXT_SIGNING_KEY }
        : null,
    intervalSeconds: parsed.TICK_INTERVAL_SECONDS,
    publicOrigin: loadPublicOrigin(env),
  }
}

/**
 * The service's one public origin: `PUBLIC_URL` (an origin, http allowed for local use), else on Vercel
 * `https://$VERCEL_PROJECT_PRODUCTION_URL`, else null. It is where an HTTPS redirect points (never a host a client
 * names), the URL a QStash signature must name, and an origin MCP allows. Throws a {@link ConfigError} for a
 * `PUBLIC_URL` that is not an origin.
 */
export function loadPublicOrigin(env: Environment): string | null {
  const configured = env.PUBLIC_URL?.trim().replace(/\/+$/, '')
  if (configured) {
    const origin = bareOrigin(configured)
    if (!origin) throw new ConfigError('Invalid public URL configuration: PUBLIC_URL: must be an origin (https://host[:port], no path)')
    return origin
  }
  const production = env.VERCEL_PROJECT_PRODUCTION_URL?.trim()
  return production ? bareOrigin(`https://${production}`) : null
}

/**
 * {@link loadPublicOrigin} of this process's environment, read once per instance (a deployment's environment does not
 * change under it); a malformed `PUBLIC_URL` reads as none (npm start refuses it at start). A test that needs another
 * origin hands it to the endpoint (`publicOriginOf`).
 */
export const publicOrigin: () => string | null = perInstance(() => {
  try {
    return loadPublicOrigin(process.env)
  } catch {
    return null
  }
})

/** `scheme://host[:port]` of an http(s) URL with no path, query or credentials; else null. */
function bareOrigin(value: string): string | null {
  try {
    const url = new URL(value)
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null
  } catch {
    return null
  }
}
