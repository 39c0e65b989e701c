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
  /** Values that must never appear in a line; each occurrence is replaced with `[redacted]`. */
  secrets?: () => readonly string[]
  now?: () => number
}

const registeredSecrets = new Set<string>()

/** Registers a value (a token, a key) that the default logger must never print. Short values are ignored. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) registeredSecrets.add(value)
}

/** Creates a logger that redacts secrets by construction: the finished line is scrubbed before it is written. */
export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const {
    write = (line, level) => (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`),
    secrets = () => [...registeredSecrets],
    now = Date.now,
  } = parameters
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

let processWideLogger: Logger | undefined

/** The process's own logger (stdout and stderr, registered secrets scrubbed), for lines written before any service exists. */
export function processLogger(): Logger {
  processWideLogger ??= createLogger()
  return processWideLogger
}

/** A logger that drops every line (tests, benchmarks). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} }

/**
 * Names an error for a log line without its message, which for some clients (the Upstash one) holds the whole
 * command and its arguments.
 */
export function errorName(error: unknown): string {
  if (error instanceof Error) return error.name || 'Error'
  return typeof error
}
