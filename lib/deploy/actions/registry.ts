import { errorAnswerOf } from '../../platform/errorAnswer.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import type { Logger } from '../../platform/log.js'
import { refused } from '../../platform/result.js'
import type { DeployServicesSource } from '../instance.js'
import { type DeployResult, failure } from '../outcome.js'
import { type AgentAction, agentDoorErrors, answer, type CallingAgent, type PublicActionRun } from './action.js'
import { agentDeployAction } from './agentDeploy.js'
import { collectFeesAction } from './collectFees.js'
import { listDeploysAction } from './listDeploys.js'
import { listEventsAction } from './listEvents.js'
import { receiptAction } from './receipt.js'
import { redeliverAction } from './redeliver.js'
import { mintAction, renounceAction, transferAdminAction, updateMetadataAction } from './tokenActions.js'
import { tokenStatusAction } from './tokenStatus.js'

// Every agent action, in one list: POST /api/b20-skill dispatches on the body's `action`, the MCP server offers each
// one's tool, the OpenAPI document declares each one's request and answers, and llms.txt and the skill file list them.
// A new action is a module and a line here (tests/deploy/actionRegistry.test.ts serves a fixture action everywhere).
// Each of those takes the list as a parameter whose default is this one, so a test hands in its own.

/** The agent actions, in the order the documents list them. */
export const AGENT_ACTIONS: readonly AgentAction[] = [
  agentDeployAction,
  receiptAction,
  listDeploysAction,
  listEventsAction,
  redeliverAction,
  tokenStatusAction,
  collectFeesAction,
  updateMetadataAction,
  mintAction,
  transferAdminAction,
  renounceAction,
]

/** The action a body's `action` names, or undefined. */
export function actionNamed(name: unknown): AgentAction | undefined {
  return AGENT_ACTIONS.find((action) => action.name === name)
}

/** Parameters of {@link runAgentAction}. */
export type RunAgentActionParameters = {
  source: DeployServicesSource
  /** The calling agent, its key already checked (the agent-key middleware); null: a caller without a key (public actions only). */
  agent: CallingAgent | null
  /** The parsed JSON body, `action` included. */
  body: unknown
  /** The `Idempotency-Key` presented, if any. */
  idempotencyKey: string | null
  /** The actions this door offers (default: every one, {@link AGENT_ACTIONS}). */
  actions?: readonly AgentAction[]
  /** The door the request came through, for the log line of a failure (default `b20-skill`). */
  door?: string
}

/** Parameters of {@link pickAgentAction}: `A` is how the door holds an action (the registry's, or its own face of one). */
export type PickAgentActionParameters<A extends { name: string }> = {
  /** The parsed JSON body; its `action` names the action. */
  body: unknown
  /** The actions this door offers ({@link AGENT_ACTIONS} for every one). */
  offered: readonly A[]
  /** The action a body that names none asks for (default: none, so a missing action is refused). */
  whenMissing?: A
}

/** The picked action, or the refusal that names what the door offers. */
export type PickAgentActionReturnType<A extends { name: string }> = DeployResult<{ action: A }>

/**
 * The action a body names among those a door offers: every door (`/api/b20-skill`, the paid door, MCP through its
 * tools) picks through here, so an unknown action is refused the same way everywhere, listing what that door takes.
 */
export function pickAgentAction<A extends { name: string }>({
  body,
  offered,
  whenMissing,
}: PickAgentActionParameters<A>): PickAgentActionReturnType<A> {
  const name = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { action?: unknown }).action : undefined
  const action = name === undefined && whenMissing ? whenMissing : offered.find((offer) => offer.name === name)
  if (action && typeof body === 'object' && body !== null) return { ok: true, action }
  const quoted = offered.map((offer) => `"${offer.name}"${offer === whenMissing ? ' (or omitted)' : ''}`)
  const expected = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted.join('')
  return failure('UNKNOWN_ACTION', 'Unknown or missing action.', { details: [{ field: 'action', reason: `must be ${expected}` }] })
}

/**
 * Runs one agent action for a checked agent and answers it; never throws. A request is checked before anything is
 * loaded (a refusal costs no chain, signer or store); only then are the services built. An error thrown on the way is
 * answered by the one mapping (lib/platform/errorAnswer.ts): a not-found is its 404, a variable the operator must fix
 * `CONFIG_INVALID`, anything nobody expected `INTERNAL` with the request id.
 */
export async function runAgentAction(parameters: RunAgentActionParameters): Promise<HttpAnswer> {
  const { source, agent, body, idempotencyKey, actions = AGENT_ACTIONS, door = 'b20-skill' } = parameters
  const picked = pickAgentAction({ body, offered: actions })
  if (!picked.ok) return answer(picked)
  // The doors let a caller without a key reach public actions only; anything else is refused here too, as it is there.
  if (!agent && picked.action.access !== 'public')
    return { status: 403, body: refused('FORBIDDEN', { error: `The action ${picked.action.name} needs an agent key.` }) }
  const checked = picked.action.check({ body, idempotencyKey })
  if (!checked.ok) return answer(checked)
  let logger: Logger | undefined
  try {
    const services = await source.services()
    logger = services.logger
    // A public action's check answers a run that takes a caller without a key (PublicActionRun).
    return agent ? await checked.run({ services, agent }) : await (checked.run as PublicActionRun)({ services, agent: null })
  } catch (error) {
    return errorAnswerOf(error, { ...agentDoorErrors(door), logger })
  }
}
