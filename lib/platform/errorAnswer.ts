import { logConfigFailure } from './config.js'
import { BaseError, NotFoundError } from './errors.js'
import type { HttpAnswer } from './httpAnswer.js'
import { type Logger, processLogger, unexpectedErrorFields } from './log.js'
import { currentRequestId } from './requestId.js'

/** What a caller learns when a configuration does not load: that something is wrong, and nothing of what. */
export const CONFIG_INVALID_BODY = { error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' } as const

/**
 * An error as an answer: the one {@link HttpAnswer}, narrowed to what an error's carries (its body's `error` and `code`,
 * and its headers always there: `Retry-After` when it says when to retry).
 */
export type ErrorAnswer = HttpAnswer & {
  body: { ok?: false; error: string; code: string } & Record<string, unknown>
  headers: Record<string, string>
}

/**
 * How an endpoint answers an error, declared once per endpoint: the edge's `onError` (lib/platform/edge.ts) answers by
 * it, and so does every place that must answer an error without throwing it on (an agent action, an MCP tool).
 */
export type ErrorContract = {
  /** Which endpoint answers, for the operator's log line. */
  endpoint: string
  /** The log line's event for an unexpected error (default `<endpoint>_failed`). */
  unexpectedEvent?: string
  /** Whether the endpoint's bodies carry `ok` (the agent doors' do, as `ok: false`; the read endpoints' do not). */
  withOk?: boolean
  /**
   * Which other errors the endpoint answers as themselves (its documented answers: a store outage's 503 on a door
   * that documents it); any other is a failure nobody expected there, answered `INTERNAL`. A {@link NotFoundError} is
   * answered as itself on every endpoint. Default: none other.
   */
  answersAsItself?: (error: BaseError) => boolean
}

/** Parameters of {@link errorAnswerOf}: the endpoint's {@link ErrorContract}, and where its log line goes. */
export type ErrorAnswerOfParameters = ErrorContract & {
  /** Where the log line goes (default the process's logger). */
  logger?: Logger
}

/** Parameters of {@link configInvalidAnswer} and {@link internalAnswer}. */
type AnswerShapeParameters = {
  /** Where the log line goes (default the process's logger). */
  logger?: Logger
  /** Whether the endpoint's bodies carry `ok` (the agent doors' do, as `ok: false`; the read endpoints' do not). */
  withOk?: boolean
}

/**
 * The answer of an endpoint whose configuration (or the services built from it) does not load: 500 `CONFIG_INVALID`
 * with a fixed sentence, after logging why for the operator (`config_invalid` with the message, which names the
 * variables and never their values, or `config_failed` with the error's name).
 */
function configInvalidAnswer(
  endpoint: string,
  error: unknown,
  { logger = processLogger(), withOk = true }: AnswerShapeParameters = {},
): ErrorAnswer {
  logConfigFailure(endpoint, error, logger)
  return { status: 500, body: { ...(withOk ? { ok: false as const } : {}), ...CONFIG_INVALID_BODY }, headers: {} }
}

/**
 * The answer to an error nobody expected (a bug, a runtime API missing): 500 `INTERNAL` with the request id to quote,
 * and one log line (`event`) naming the error. Never "Redis is down" or any other guess at which part failed.
 */
function internalAnswer(
  event: string,
  error: unknown,
  { logger = processLogger(), withOk = true }: AnswerShapeParameters = {},
): ErrorAnswer {
  const requestId = currentRequestId()
  logger.error(event, unexpectedErrorFields(error))
  return {
    status: 500,
    body: {
      ...(withOk ? { ok: false as const } : {}),
      error: `The request failed unexpectedly; the operator can trace it by its request id${requestId ? ` (${requestId})` : ''}.`,
      code: 'INTERNAL',
      ...(requestId ? { requestId } : {}),
    },
    headers: {},
  }
}

/**
 * The one mapping from an error to an answer, on every path: a configuration error ({@link BaseError} with code
 * `CONFIG_INVALID`) is {@link configInvalidAnswer}; a {@link NotFoundError}, or a {@link BaseError} the endpoint answers
 * as itself (`answersAsItself`), answers its status, code, short message and details (`Retry-After` from a
 * `retryAfterSeconds` among them); anything else is a failure nobody expected there: {@link internalAnswer}, so no
 * endpoint answers a status its contract does not list.
 */
export function errorAnswerOf(error: unknown, parameters: ErrorAnswerOfParameters): ErrorAnswer {
  const { endpoint, logger, unexpectedEvent = `${endpoint}_failed`, withOk = true, answersAsItself = () => false } = parameters
  if (error instanceof BaseError && error.code === 'CONFIG_INVALID') return configInvalidAnswer(endpoint, error, { logger, withOk })
  if (!(error instanceof BaseError) || !(error instanceof NotFoundError || answersAsItself(error)))
    return internalAnswer(unexpectedEvent, error, { logger, withOk })
  const retryAfter = error.details.retryAfterSeconds
  return {
    status: error.httpStatus,
    body: { ...(withOk ? { ok: false as const } : {}), error: error.shortMessage, code: error.code, ...error.details },
    headers: typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
  }
}
