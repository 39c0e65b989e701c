import { z } from 'zod'
import { registerSecret } from './log.js'

/** The environment could not be turned into a configuration; the message names each variable and what is wrong. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The environment variables this service reads. */
export type Environment = Record<string, string | undefined>

/** Configuration of the read endpoints. */
export type ReadConfig = {
  dexscreenerBaseUrl: string
  /** Upstash REST endpoint and token, or null for the in-process store. */
  redis: { url: string; token: string } | null
  /** Prefix of every key this service writes to the shared store. */
  storePrefix: string
}

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional())
const httpUrl = z
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

/** Builds a parser that reports every problem with the variable names, never the values (they may be secrets). */
function parseWith<T extends z.ZodType>(schema: T, env: Environment, what: string): z.infer<T> {
  const result = schema.safeParse(env)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`)
  throw new ConfigError(`Invalid ${what} configuration: ${problems.join('; ')}`)
}

const readSchema = z
  .object({
    DEXSCREENER_BASE_URL: optional(httpUrl).default('https://api.dexscreener.com'),
    UPSTASH_REDIS_REST_URL: optional(httpUrl),
    UPSTASH_REDIS_REST_TOKEN: optional(z.string()),
    KV_REST_API_URL: optional(httpUrl),
    KV_REST_API_TOKEN: optional(z.string()),
    STORE_KEY_PREFIX: optional(z.string().regex(/^[A-Za-z0-9:_-]{1,32}$/, 'must be 1-32 of A-Z a-z 0-9 : _ -')).default('bcr:'),
  })
  .superRefine((env, ctx) => {
    for (const [url, token] of [['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'], ['KV_REST_API_URL', 'KV_REST_API_TOKEN']] as const) {
      if (env[url] && !env[token]) ctx.addIssue({ code: 'custom', path: [token], message: `is required when ${url} is set` })
      if (!env[url] && env[token]) ctx.addIssue({ code: 'custom', path: [url], message: `is required when ${token} is set` })
    }
  })

/** Parses the read endpoints' configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadReadConfig(env: Environment = process.env): ReadConfig {
  const parsed = parseWith(readSchema, env, 'read API')
  const url = parsed.UPSTASH_REDIS_REST_URL ?? parsed.KV_REST_API_URL
  const token = parsed.UPSTASH_REDIS_REST_URL ? parsed.UPSTASH_REDIS_REST_TOKEN : parsed.KV_REST_API_TOKEN
  registerSecret(token)
  return {
    dexscreenerBaseUrl: parsed.DEXSCREENER_BASE_URL,
    redis: url && token ? { url, token } : null,
    storePrefix: parsed.STORE_KEY_PREFIX,
  }
}
