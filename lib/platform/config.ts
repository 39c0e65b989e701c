import { z } from 'zod'
import { BaseError } from './errors.js'
import { errorName, type Logger, processLogger } from './log.js'
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
  if (error instanceof ConfigError) logger.error('config_invalid', { handler, message: error.shortMessage })
  else logger.error('config_failed', { handler, error: errorName(error) })
}

/** The environment variables this service reads. */
export type Environment = Record<string, string | undefined>

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
