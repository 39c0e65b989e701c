import type { B20Revert } from '../chain/b20.js'
import type { IntentProblem } from './intent.js'

/** Machine codes of a deploy or receipt that did not succeed; `error` says the same for people. */
export type DeployFailureCode =
  | 'INVALID_INTENT'
  | 'UNKNOWN_ACTION'
  | 'SIGNER_NOT_CONFIGURED'
  | 'SIGNER_UNAVAILABLE'
  | 'SIGNER_MISMATCH'
  | 'SIGNER_UNFUNDED'
  | 'CHAIN_MISMATCH'
  | 'RPC_UNAVAILABLE'
  | 'RPC_REJECTED'
  | 'STORE_UNAVAILABLE'
  | 'DEPLOYS_DISABLED'
  | 'DEPLOY_BUSY'
  | 'DEPLOY_CAP_REACHED'
  | 'AGENT_CAP_REACHED'
  | 'SIMULATION_REVERTED'
  | 'BROADCAST_UNCERTAIN'
  | 'IDEMPOTENCY_CONFLICT'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'TX_NOT_FOUND'
  | 'NOT_A_DEPLOY'
  | 'REVERTED'

/** A body with `ok: false`: `error` always, `details`, `revert`, `retryAt` and `txHash` where they apply. */
export type DeployFailure = {
  ok: false
  error: string
  code: DeployFailureCode
  status?: 'reverted'
  details?: IntentProblem[]
  revert?: B20Revert
  /** When a cap slot frees up (ISO 8601), for cap answers. */
  retryAt?: string
  /** Seconds until it is worth trying again. */
  retryAfterSeconds?: number
  txHash?: string
  explorerUrl?: string
}

/** Builds a failure body. */
export function failure(code: DeployFailureCode, error: string, extra: Omit<DeployFailure, 'ok' | 'code' | 'error'> = {}): DeployFailure {
  return { ok: false, error, code, ...extra }
}
