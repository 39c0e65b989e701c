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
  /** Structured facts about the failure, public as the short message is (never a secret, a URL with a key, a command). */
  details?: Readonly<Record<string, unknown>>
  /** What the failure came from: private, never shown, logged only by its name. */
  cause?: unknown
}

/**
 * The base of every error the service raises, in viem's `BaseError` shape: a `code`, a `shortMessage` (one public
 * sentence: it names no secret, so it is what an answer shows and a log line may carry), `details`, a `cause` and
 * `walk()`. The `message` is the short message followed by the details, as viem's is.
 *
 * One difference from viem, on purpose: viem's `details` is a string (the cause's message, shown in the error's
 * message). Here the cause is private (a node's message can hold an RPC URL with its key), so `details` is instead the
 * structured, public record an answer spreads into its body (`retryAfterSeconds`, the problems of a request): keeping
 * it structured lets a client read a field instead of parsing a sentence, and keeping viem's name keeps one word for
 * "what else may be shown about this failure".
 */
export class BaseError<code extends string = string> extends Error {
  override name = 'BaseError'
  /** The answer code. */
  readonly code: code
  /** The HTTP status of the error's answer. */
  readonly httpStatus: number
  /** The one public sentence: what an answer shows as its `error`. */
  readonly shortMessage: string
  /** Structured, public facts about the failure (see the class's comment for why not viem's string). */
  readonly details: Readonly<Record<string, unknown>>

  constructor(shortMessage: string, { code, httpStatus = 500, details = {}, cause }: BaseErrorParameters<code>) {
    super(messageOf(shortMessage, details), cause === undefined ? undefined : { cause })
    this.code = code
    this.httpStatus = httpStatus
    this.shortMessage = shortMessage
    this.details = details
  }

  /**
   * Walks the cause chain from this error, as viem's `walk`: the first error `fn` accepts (or null when none does), or
   * without `fn` the innermost cause.
   */
  walk(fn?: (error: unknown) => boolean): unknown {
    return walk(this, fn)
  }
}

/** The short message, then the details when there are any (as viem writes `Details:` under its short message). */
function messageOf(shortMessage: string, details: Readonly<Record<string, unknown>>): string {
  return Object.keys(details).length === 0 ? shortMessage : `${shortMessage}\n\nDetails: ${JSON.stringify(details)}`
}

/** The first error of the chain from `error` that `fn` accepts, else null; without `fn`, the innermost. */
function walk(error: unknown, fn?: (error: unknown) => boolean): unknown {
  if (fn?.(error)) return error
  if (error && typeof error === 'object' && 'cause' in error && error.cause !== undefined) return walk(error.cause, fn)
  return fn ? null : error
}

/**
 * What a request looked for does not exist: answered 404 with its own code on every path (lib/platform/errorAnswer.ts
 * answers it as itself wherever it is thrown), and never cached, so it answers as soon as the thing exists.
 */
export class NotFoundError<code extends string = string> extends BaseError<code> {
  override name = 'NotFoundError'
  constructor(code: code, shortMessage: string, { details, cause }: Pick<BaseErrorParameters, 'details' | 'cause'> = {}) {
    super(shortMessage, { code, httpStatus: 404, details, cause })
  }
}
