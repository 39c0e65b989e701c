// The webhook event types, alone: the events' answers (eventAnswers.ts) read them where node:crypto is not loaded.

/** What an agent is told about its deploys, one event type per outcome (Standard Webhooks `<noun>.<verb>`). */
export const DEPLOY_EVENT_TYPES = [
  'deploy.broadcast',
  'deploy.confirmed',
  'deploy.reverted',
  'deploy.replaced',
  'token.listed',
  'pool.seeded',
  'pool.failed',
  'token.updated',
  'token.minted',
  'token.admin_transferred',
  'token.renounced',
  'token.action_reverted',
] as const

/** One of {@link DEPLOY_EVENT_TYPES}. */
export type DeployEventType = (typeof DEPLOY_EVENT_TYPES)[number]

/** What a confirmed transaction of an action on a token tells its agent, by the transaction's kind. */
const TOKEN_ACTION_EVENTS: Readonly<Record<string, DeployEventType>> = {
  update_metadata: 'token.updated',
  mint: 'token.minted',
  transfer_admin: 'token.admin_transferred',
  renounce: 'token.renounced',
}

/**
 * The event a mined transaction tells its agent (pure): an action on a token its own (`token.minted`, …, and
 * `token.action_reverted`), any other kind `deploy.confirmed` or `deploy.reverted`.
 */
export function minedEventType(kind: string, status: 'confirmed' | 'reverted'): DeployEventType {
  const action = TOKEN_ACTION_EVENTS[kind]
  if (action) return status === 'confirmed' ? action : 'token.action_reverted'
  return status === 'confirmed' ? 'deploy.confirmed' : 'deploy.reverted'
}

/**
 * Whether a transaction is an action on a token an agent asked for: neither a creation nor a launch's own seed or
 * share given back (`of` names the launch they belong to, which answers for them).
 */
export const isTokenAction = (record: { kind: string; of?: string | undefined }) =>
  !createsToken(record.kind) && record.kind !== 'seed' && record.kind !== 'return' && record.of === undefined

/** Whether a transaction of this kind created a token (a deploy or a pooled launch): what is announced as a launch. */
export const createsToken = (kind: string) => kind === 'deploy' || kind === 'launch'
