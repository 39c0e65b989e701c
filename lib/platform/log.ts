import { systemClock } from './clock.js'
import { perInstance } from './perInstance.js'
import { currentRequestId } from './requestId.js'

/** Values a log field may hold; objects are not accepted, so nothing is logged by accident. */
export type LogValue = string | number | boolean | null | undefined

/** Severity of a log line. */
export type LogLevel = 'info' | 'warn' | 'error'

/** Writes one structured JSON line per event. */
export type Logger = {
  info(event: string, fields?: Record<string, LogValue>): void
  warn(event: string, fields?: Record<string, LogValue>): void
  error(event: string, fields?: Record<string, LogValue>): void
}

/** Parameters of {@link createLogger}. */
export type CreateLoggerParameters = {
  /** Where lines go (default: stdout for info, stderr for warn and error). */
  write?: (line: string, level: LogLevel) => void
  /**
   * Values that must never appear in a line; each occurrence is replaced with `[redacted]` (default: the credentials of
   * the process's environment and of `env`).
   */
  secrets?: () => readonly string[]
  /** The environment the services writing through this logger were configured from, when not the process's. */
  env?: Readonly<Record<string, string | undefined>>
  now?: () => number
}

/** A value short enough to appear by chance in any line is not scrubbed: it is no credential. */
const SHORTEST_SECRET = 8

/**
 * What of a URL that may carry a credential (an RPC URL with its key in the path, as Alchemy, Infura and QuickNode
 * issue them; a proxy with a token in the query) no line may print: the whole URL, its path and query, any password in
 * it, and each long segment (viem and fetch may print the path alone, or each segment). An origin alone carries nothing
 * secret and is left readable.
 */
export function secretsOfUrl(value: string | undefined): string[] {
  if (!value) return []
  const secrets = [value, value.replace(/\/+$/, '')]
  try {
    const url = new URL(value)
    secrets.push(decodeURIComponent(url.password), url.password)
    const rest = `${url.pathname}${url.search}`.replace(/\/+$/, '')
    if (rest.length > 1) {
      secrets.push(rest)
      for (const part of `${url.pathname.slice(1)}/${url.search.slice(1)}`.split(/[/&=?]/)) if (part.length >= 16) secrets.push(part)
    }
  } catch {
    // not a URL: scrubbed whole
  }
  return secrets
}

/** Environment variables whose whole value is a credential. */
export const SECRET_VARIABLES = [
  'UPSTASH_REDIS_REST_TOKEN',
  'KV_REST_API_TOKEN',
  'VERCEL_OIDC_TOKEN',
  'HEALTH_TOKEN',
  'CRON_SECRET',
  'QSTASH_CURRENT_SIGNING_KEY',
  'QSTASH_NEXT_SIGNING_KEY',
  'QSTASH_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'CDP_API_KEY_SECRET',
] as const

/** Environment variables holding a URL that may carry a credential in its password, path or query. */
export const SECRET_URL_VARIABLES = [
  'UPSTASH_REDIS_REST_URL',
  'KV_REST_API_URL',
  'BASE_RPC_URL',
  'AWS_ENDPOINT_URL_KMS',
  'DEXSCREENER_BASE_URL',
  'GECKOTERMINAL_BASE_URL',
  'X402_FACILITATOR_URL',
] as const

/**
 * Every credential an environment holds, by variable name, whichever side reads it: what is redacted never depends on
 * which configuration happened to be loaded. Computed, never accumulated: the same environment gives the same list.
 */
export function secretsOfEnvironment(env: Readonly<Record<string, string | undefined>>): string[] {
  const secrets = [...SECRET_VARIABLES.map((name) => env[name]), ...SECRET_URL_VARIABLES.flatMap((name) => secretsOfUrl(env[name]))]
  return [...new Set(secrets.filter((value): value is string => value !== undefined && value.length >= SHORTEST_SECRET))]
}

/** The credentials of the process's own environment, read once per instance. */
const processSecrets = perInstance(() => secretsOfEnvironment(process.env))

/** Creates a logger that redacts secrets by construction: the finished line is scrubbed before it is written. */
export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const {
    write = (line, level) => (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`),
    env,
    now = systemClock.now,
  } = parameters
  const ofEnv = env && env !== process.env ? secretsOfEnvironment(env) : []
  const secrets = parameters.secrets ?? (() => [...processSecrets(), ...ofEnv])
  const emit = (level: LogLevel, event: string, fields: Record<string, LogValue> = {}) => {
    // Every line written while serving a request names it (lib/platform/requestId.ts).
    const requestId = currentRequestId()
    let line = JSON.stringify({ ts: new Date(now()).toISOString(), level, event, ...(requestId ? { requestId } : {}), ...fields })
    for (const secret of secrets()) if (secret) line = line.split(secret).join('[redacted]')
    write(line, level)
  }
  return {
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  }
}

/** The process's own logger (stdout and stderr, the environment's credentials scrubbed), for lines written before any service exists. */
export const processLogger: () => Logger = perInstance(() => createLogger())

/** A logger that drops every line (tests, benchmarks). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} }

/**
 * What of an error's text may go into an answer, a log line or the store: a `shortMessage`, viem's (its summary, which
 * leaves out the request's URL and body) or the service's own errors' (lib/platform/errors.ts: public by
 * construction); never any other message, which for an RPC or a store client can hold the URL with its key,
 * or a command and its arguments.
 */
export function publicErrorMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined
  const { shortMessage } = error as Error & { shortMessage?: unknown }
  if (typeof shortMessage === 'string') return shortMessage.slice(0, 300)
  return undefined
}

/**
 * Names an error for a log line without its message, which for some clients (the Upstash one) holds the whole
 * command and its arguments.
 */
export function errorName(error: unknown): string {
  if (error instanceof Error) return error.name || 'Error'
  return typeof error
}

/** Errors raised by the runtime itself (a bug, an API missing from this Node): their messages hold no request data. */
const RUNTIME_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError]

/**
 * The log fields that name an unexpected error: its name, and its message where that can hold no secret (a runtime
 * error's, or a public one, see {@link publicErrorMessage}). The operator reads what broke; nothing else leaks.
 */
export function unexpectedErrorFields(error: unknown): { error: string; message?: string } {
  const runtime = RUNTIME_ERRORS.some((type) => error instanceof type) ? (error as Error).message.slice(0, 300) : undefined
  const message = publicErrorMessage(error) ?? runtime
  return { error: errorName(error), ...(message ? { message } : {}) }
}
