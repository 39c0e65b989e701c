// An action on a launched token, run: the token read as the chain has it now, who sends the calls decided (the
// service's signer where it holds the role and the agent asking launched the token; the role's holder's own wallet
// otherwise), the calls planned and simulated from that account, then sent through the one sender or answered as
// prepared calls in EIP-5792 `wallet_sendCalls`' shape. Every refusal the token gives is decoded; nothing is signed
// before the simulation passed.
import { type Address, type Hex, isAddressEqual, type PublicClient } from 'viem'
import { encodeExecuteBatch } from '../../chain/batchAccount.js'
import { roleIdsOf } from '../../chain/tokenManageCalls.js'
import { B20_ROLES, readRolesOf, roleName } from '../../chain/tokenPowers.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { deployCapKeys } from '../keys.js'
import { type DeployResult, failure } from '../outcome.js'
import { type LaunchState, readLaunchState } from '../records/launchState.js'
import type { DeployServices } from '../services.js'
import { releaseCapSlot, reserveCapSlot } from './capWindow.js'
import { readySigner } from './prepare.js'
import { sendActionTransaction } from './sendTransaction.js'
import { simulateCalls } from './simulateCalls.js'
import { planTokenAction, roleNeeded, type TokenActionPlan, type TokenActionRequest } from './tokenActionPlan.js'

/** The calling agent as an action on a token needs it: its key's digest. */
export type CallingAgent = { digest: string }

/** Parameters of {@link runTokenAction}. */
export type RunTokenActionParameters = {
  services: DeployServices
  /** The calling agent; null: a caller without a key (prepared calls only). */
  agent: CallingAgent | null
  token: Address
  request: TokenActionRequest
  /** The account to prepare the calls for (one that holds the role); default: the signer where it may act, else a holder. */
  from?: Address
  dryRun?: boolean
  waitSeconds?: number
}

const answer = (body: object, status = 200): HttpAnswer => ({ status, body: body as Record<string, unknown> })

/**
 * Runs an action on a launched token and answers it: `broadcast` (sent by the service's signer), `simulated` (the
 * same with `dryRun`), `prepared` (calls for `from`'s wallet), `preview` (renounce without `confirm`), or the refusal:
 * 403 `NOT_YOUR_TOKEN` when only the service's signer could do it and the caller did not launch the token.
 */
export async function runTokenAction(parameters: RunTokenActionParameters): Promise<HttpAnswer> {
  const { services, agent, token, request } = parameters
  const read = await readLaunchState({ services, token })
  if (!read.ok) return answer(read)
  const { state } = read
  // Who keeps what after a renounce is a public fact: previewed for anyone, before deciding who may send it.
  if (request.action === 'renounce' && request.confirm !== true) return previewRenounce(services, state, parameters.from)
  const who = await senderOf(services.publicClient, state, request, parameters.from, agent)
  if (!who.ok) return answer(who, who.code === 'NOT_YOUR_TOKEN' ? 403 : 200)
  const { from, held, executes } = who
  const planned = planTokenAction({
    request,
    token: plannedToken(state),
    from,
    held,
  })
  if (!planned.ok) return answer(planned)
  const { plan } = planned
  const base = {
    ok: true,
    action: request.action,
    token: state.token,
    chainId: services.config.chainId,
    from,
    effect: plan.effect,
    rolesComplete: state.rolesComplete,
  }
  const simulated = await simulateCalls({
    client: services.publicClient,
    from,
    calls: plan.calls,
    blockNumber: BigInt(state.blockNumber),
    delegate: services.config.delegate,
  })
  if (!simulated.ok) return answer(simulated)
  const keeps = plan.keeps ? { keeps: plan.keeps } : {}
  if (!executes)
    return answer({
      ...base,
      status: 'prepared',
      calls: plan.calls.map((call) => ({ to: call.to, data: call.data, value: '0x0' })),
      atomicRequired: plan.calls.length > 1,
      simulated: true,
      blockNumber: state.blockNumber,
      ...keeps,
    })
  if (parameters.dryRun) return answer({ ...base, status: 'simulated', calls: plan.calls.length, blockNumber: state.blockNumber, ...keeps })
  const sent = await execute(parameters, state, plan, agent!)
  // A refusal on the way (the lock busy, KMS down, the node's no) is the sender's answer as it is: nothing went out.
  return answer(sent.ok ? { ...base, ...keeps, ...sent } : sent)
}

/**
 * Sends the plan's calls from the signer (one call, or a batch to itself through its delegate), after a slot of the
 * agent's rolling cap on executed actions (`TOKEN_ACTION_DAILY_CAP`): they spend the service's gas. The slot goes back
 * when nothing went out.
 */
async function execute(parameters: RunTokenActionParameters, state: LaunchState, plan: TokenActionPlan, agent: CallingAgent) {
  const { services } = parameters
  const { config, store } = services
  const batch = plan.calls.length > 1
  const ready = await readySigner(services)
  if (!ready.ok) return ready
  // The roles are the creator's: a signer rotated since cannot use them (its transaction would act as nobody).
  if (!isAddressEqual(ready.signer.address, state.creator))
    return failure(
      'SIGNER_MISMATCH',
      `${state.token} was created by the service's earlier signer ${state.creator}, which holds its roles; the service signs as ${ready.signer.address} now and cannot act for it. Nothing was sent.`,
    )
  // Several calls run through the signer's EIP-7702 delegate: never authorize code whose hash is not the pinned one.
  if (batch && !(await services.delegateCheck(config.delegate)))
    return failure(
      'DELEGATION_UNAVAILABLE',
      `The delegate ${config.delegate} does not hold Simple7702Account v0.8's code on this chain; nothing was signed.`,
      {
        retryAfterSeconds: 60,
      },
    )
  const slot = store
    ? {
        key: deployCapKeys({ storePrefix: config.storePrefix, chainId: config.chainId }).tokenActionCap(agent.digest),
        member: services.randomSalt(),
      }
    : null
  if (store && slot) {
    const windowMs = config.capWindowSeconds * 1000
    const now = services.clock.now()
    const taken = await reserveCapSlot(store, { ...slot, limit: config.tokenActionCap, windowMs, now })
    if (!taken.ok) {
      const retryAt = new Date(taken.freesAt).toISOString()
      return failure(
        'AGENT_CAP_REACHED',
        `Your ${config.tokenActionCap} executed actions on tokens per ${config.capWindowSeconds} s are used; a slot frees up at ${retryAt}. Prepared calls (name \`from\`) are not counted.`,
        { retryAt, retryAfterSeconds: Math.max(1, Math.ceil((taken.freesAt - now) / 1000)) },
      )
    }
  }
  const sent = await sendActionTransaction({
    services,
    agent,
    kind: parameters.request.action,
    call: batch
      ? { to: state.creator, data: encodeExecuteBatch(plan.calls.map(({ to, data }) => ({ target: to, value: 0n, data }))) }
      : plan.calls[0]!,
    ...(batch ? { delegate: services.config.delegate } : {}),
    token: {
      address: state.token,
      name: state.name,
      symbol: state.symbol,
      variant: state.token.slice(22, 24) === '01' ? 'stablecoin' : 'asset',
      decimals: state.decimals,
    },
    ...(parameters.waitSeconds ? { waitSeconds: parameters.waitSeconds } : {}),
  })
  // Nothing went out (refused before the broadcast, or by the node): the slot is given back. A send with no answer keeps it.
  if (!sent.ok && sent.code !== 'BROADCAST_UNCERTAIN' && store && slot)
    await releaseCapSlot(store, slot.key, slot.member).catch(() => undefined)
  return sent
}

/** `renounce` without `confirm`: who keeps what once `from` (default the service's signer) has given up its roles. */
async function previewRenounce(services: DeployServices, state: LaunchState, asked: Address | undefined): Promise<HttpAnswer> {
  const from = asked ?? state.creator
  const held = isAddressEqual(from, state.creator)
    ? roleIdsOf(state.powers.signerRoles)
    : await readRolesOf({ client: services.publicClient, token: state.token, account: from, blockNumber: BigInt(state.blockNumber) })
  const planned = planTokenAction({ request: { action: 'renounce' }, token: plannedToken(state), from, held })
  if (!planned.ok) return answer(planned)
  const { plan } = planned
  return answer({
    ok: true,
    action: 'renounce',
    token: state.token,
    chainId: services.config.chainId,
    from,
    effect: plan.effect,
    rolesComplete: state.rolesComplete,
    status: 'preview',
    keeps: plan.keeps,
    blockNumber: state.blockNumber,
  })
}

/** The token as the planner reads it. */
function plannedToken(state: LaunchState) {
  const { token: address, decimals, name, symbol, powers, metadata, creator: signer } = state
  return { address, decimals, name, symbol, powers, metadata, signer }
}

/** Who sends an action's calls: the signer (executed) or a holder's wallet (prepared), and the roles it holds. */
async function senderOf(
  client: PublicClient,
  state: LaunchState,
  request: TokenActionRequest,
  asked: Address | undefined,
  agent: CallingAgent | null,
): Promise<DeployResult<{ from: Address; held: Hex[]; executes: boolean }>> {
  const signer = state.creator
  const signerHeld = roleIdsOf(state.powers.signerRoles)
  const needed = roleNeeded(request.action)
  const admin = B20_ROLES.DEFAULT_ADMIN_ROLE
  // An admin may take any other role for the calls (tokenActionPlan.ts): it may act too.
  const signerMay = needed ? signerHeld.includes(needed) || signerHeld.includes(admin) : signerHeld.length > 0
  if ((!asked || isAddressEqual(asked, signer)) && signerMay) {
    if (agent && state.launcher === agent.digest) return { ok: true, from: signer, held: signerHeld, executes: true }
    const other = !asked && needed ? holdersOf(state, needed).find((holder) => !isAddressEqual(holder, signer)) : undefined
    if (!other)
      return failure(
        'NOT_YOUR_TOKEN',
        `Only the service’s signer can ${request.action.replace('_', ' ')} on ${state.token}, and only for the agent that launched it (with its key).`,
      )
    asked = other
  }
  const from = asked ?? (needed ? holdersOf(state, needed).find((holder) => !isAddressEqual(holder, signer)) : undefined)
  if (!from)
    return needed
      ? failure('MISSING_ROLE', `Nobody holds ${roleName(needed)} on ${state.token}: nobody can ${request.action.replace('_', ' ')}.`)
      : failure(
          'NO_ROLES',
          `The service’s signer holds no role on ${state.token}: there is nothing to renounce. Name \`from\` to renounce another account’s roles from its own wallet.`,
        )
  const held = isAddressEqual(from, signer)
    ? signerHeld
    : await readRolesOf({ client, token: state.token, account: from, blockNumber: BigInt(state.blockNumber) })
  return { ok: true, from, held, executes: false }
}

/** The holders of a role among those the powers list. */
function holdersOf(state: LaunchState, role: Hex): Address[] {
  const { powers } = state
  const byRole: Record<string, Address[]> = {
    DEFAULT_ADMIN_ROLE: powers.admins,
    MINT_ROLE: powers.minters,
    PAUSE_ROLE: powers.pausers,
    METADATA_ROLE: powers.metadataEditors,
  }
  const holders = byRole[roleName(role)] ?? []
  return role === B20_ROLES.DEFAULT_ADMIN_ROLE ? holders : [...holders, ...powers.admins.filter((a) => !holders.includes(a))]
}
