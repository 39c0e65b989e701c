import { errorName, type Logger } from '../platform/log.js'
import type { RequestProblem } from '../platform/problems.js'
import { type Accepted, refused } from '../platform/result.js'
import { StoreError } from '../store/types.js'
import type { DeployFailure, DeployFailureCode } from './answers/deployAnswers.js'

export type { DeployFailure, DeployFailureCode }

/**
 * The one result of a deploy step: what it produced (`ok: true` and its fields), or the {@link DeployFailure} its
 * answer carries. Every step of the deploy side answers this, so a caller reads `ok` and hands a failure on as it is.
 */
export type DeployResult<T extends object = object> = Accepted<T> | DeployFailure

/** Builds a failure body. */
export function failure(code: DeployFailureCode, error: string, extra: Omit<DeployFailure, 'ok' | 'code' | 'error'> = {}): DeployFailure {
  return refused(code, { error, ...extra })
}

/**
 * The refusal of an invalid request, `INVALID_INTENT` with every problem, in the one sentence every door answers (the
 * action's own check, a tool's arguments, the pool's plan, the paid door).
 */
export function invalidRequest(action: string, details: RequestProblem[]): DeployFailure {
  return failure('INVALID_INTENT', `The ${action} request is invalid; see details.`, { details })
}

/** Parameters of {@link storeFailureOf}. */
export type StoreFailureOfParameters = {
  logger: Logger
  /** What was being done, for the log line (`deploy-prepare`, `list_deploys`). */
  operation: string
  /** What the caller is told, for people. */
  message: string
  /** What the failure meant for the request, for the log line (`deploy refused`). */
  effect?: string
}

/**
 * The answer to an error met while using the shared store: `STORE_UNAVAILABLE` when the store failed (a
 * {@link StoreError}: unreachable, refused, timed out), logged as `store_unavailable`. Any other error is not the
 * store's and is thrown on, so the caller answers it as what it is (`INTERNAL`), never as "Redis is down".
 */
export function storeFailureOf(error: unknown, { logger, operation, message, effect }: StoreFailureOfParameters): DeployFailure {
  if (!(error instanceof StoreError)) throw error
  logger.error('store_unavailable', { operation, error: errorName(error), ...(effect ? { effect } : {}) })
  return failure('STORE_UNAVAILABLE', message, { retryAfterSeconds: 10 })
}
