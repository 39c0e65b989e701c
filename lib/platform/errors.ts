// The one base of the service's errors. Every error class in lib/ extends BaseError (tests/platform/errorBase.test.ts
// fails on any other `extends Error`), so a caller tells a known failure from a bug with one `instanceof`, and what
// may be shown of an error is decided once: its short message and its details are public, its cause is not.
// lib/platform/errorAnswer.ts turns one into an answer.

/** Parameters of a {@link BaseError}: the answer code, its public details and its private cause. */
export type BaseErrorParameters<code extends string = string> = {
  /** The answer code (`STORE_UNAVAILABLE`, `CONFIG_INVALID`, `UPSTREAM_ERROR`, …), for callers to act on. */
  code: code
  /** The HTTP status of the error's answer, when an endpoint answers it as it is (default 500). */
  httpStatus?: number
  /** Structured facts about the failure, public as the message is (never a secret, a URL with a key, a command). */
  details?: Readonly<Record<string, unknown>>
  /** What the failure came from: private, never shown, logged only by its name. */
  cause?: unknown
}

/**
 * The base of every error the service raises, as viem's `BaseError`: a `code`, a short public message (it names no
 * secret, so it may be shown to a client and logged), `details` (structured, public) and a `cause` (private).
 */
export class BaseError<code extends string = string> extends Error {
  override name = 'BaseError'
  /** The answer code. */
  readonly code: code
  /** The HTTP status of the error's answer. */
  readonly httpStatus: number
  /** Structured, public facts about the failure. */
  readonly details: Readonly<Record<string, unknown>>

  constructor(message: string, { code, httpStatus = 500, details = {}, cause }: BaseErrorParameters<code>) {
    super(message, cause === undefined ? undefined : { cause })
    this.code = code
    this.httpStatus = httpStatus
    this.details = details
  }
}
