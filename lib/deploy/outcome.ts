import type { DeployFailure, DeployFailureCode } from './responses.js'

export type { DeployFailure, DeployFailureCode }

/** Builds a failure body. */
export function failure(code: DeployFailureCode, error: string, extra: Omit<DeployFailure, 'ok' | 'code' | 'error'> = {}): DeployFailure {
  return { ok: false, error, code, ...extra }
}
