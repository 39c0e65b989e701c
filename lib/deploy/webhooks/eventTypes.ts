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
] as const

/** One of {@link DEPLOY_EVENT_TYPES}. */
export type DeployEventType = (typeof DEPLOY_EVENT_TYPES)[number]
