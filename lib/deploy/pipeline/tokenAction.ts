// An action on a launched token, run: the token read as the chain has it now, who sends the calls decided (the
// service's signer where it holds the role and the agent asking launched the token; the role's holder's own wallet
// otherwise), the calls planned and simulated from that account, then sent through the one sender or answered as
// prepared calls in EIP-5792 `wallet_sendCalls`' shape. Every refusal the token gives is decoded; nothing is signed
// before the simulation passed.
import { type Address, type Hex, isAddressEqual, type PublicClient } from 'viem'
import { decodeB20Revert } from '../../chain/b20.js'
import { decodeBatchRevert, delegationDesignator, encodeExecuteBatch } from '../../chain/batchAccount.js'
import { roleIdsOf, type TokenCall } from '../../chain/tokenManageCalls.js'
import { B20_ROLES, readRolesOf, roleName } from '../../chain/tokenPowers.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { deployCapKeys } from '../keys.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import { type LaunchState, readLaunchState } from '../records/launchState.js'
import { isTransportFailure, revertDataOf, shortMessage } from '../sender/chainErrors.js'
import type { DeployServices } from '../services.js'
import { releaseCapSlot, reserveCapSlot } from './capWindow.js'
import { sendActionTransaction } from './sendTransaction.js'
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
  const who = await senderOf(services.publicClient, state, request, parameters.from, agent)
  if (!who.ok) return answer(who, who.code === 'NOT_YOUR_TOKEN' ? 403 : 200)
  const { from, held, executes } = who
  const planned = planTokenAction({
    request,
    token: {
      address: state.token,
      decimals: state.decimals,
      name: state.name,
      symbol: state.symbol,
      powers: state.powers,
      metadata: state.metadata,
      signer: state.creator,
    },
    from,
    held,
  })
  if (!planned.ok) return answer(planned)
  const { plan } = planned
  const base = { ok: true, action: request.action, token: state.token, chainId: services.config.chainId, from, effect: plan.effect }
  if (request.action === 'renounce' && request.confirm !== true)
    return answer({ ...base, status: 'preview', keeps: plan.keeps, blockNumber: state.blockNumber })
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
  const batch = plan.calls.length > 1
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

/** Parameters of {@link simulateCalls}. */
export type SimulateCallsParameters = {
  client: PublicClient
  from: Address
  calls: readonly TokenCall[]
  blockNumber: bigint
  delegate: Address
}

/**
 * Runs the calls from `from` at `blockNumber` (eth_call): one call as it is; several as one batch of `from`'s own,
 * its code overridden with the delegation's, so each call sees the ones before. A revert is decoded.
 */
export async function simulateCalls({ client, from, calls, blockNumber, delegate }: SimulateCallsParameters): Promise<DeployResult> {
  try {
    if (calls.length === 1) await client.call({ account: from, to: calls[0]!.to, data: calls[0]!.data, blockNumber })
    else
      await client.call({
        account: from,
        to: from,
        data: encodeExecuteBatch(calls.map(({ to, data }) => ({ target: to, value: 0n, data }))),
        blockNumber,
        stateOverride: [{ address: from, code: delegationDesignator(delegate) }],
      })
    return { ok: true }
  } catch (error) {
    const data = revertDataOf(error)
    if (data === undefined && isTransportFailure(error))
      return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
    if (data === undefined) return failure('SIMULATION_REVERTED', `The token refused the call from ${from}: ${shortMessage(error)}`)
    const { index, reason } = decodeBatchRevert(data)
    return tokenRefusal(decodeB20Revert(reason), from, index)
  }
}

/** A token's refusal as a code and a sentence, nothing sent (`failedCall`: which of several calls). */
export function tokenRefusal(revert: ReturnType<typeof decodeB20Revert>, from: Address, index: number | null): DeployFailure {
  const extra = { revert, ...(index !== null ? { failedCall: index } : {}) }
  const { args } = revert
  switch (revert.name) {
    case 'AccessControlUnauthorizedAccount':
      return failure(
        'MISSING_ROLE',
        `${args.account} does not hold ${roleName(String(args.neededRole) as Hex)} on the token; nothing was sent.`,
        extra,
      )
    case 'SupplyCapExceeded':
      return failure(
        'SUPPLY_CAP_EXCEEDED',
        `The mint would pass the supply cap (${args.cap} base units; ${args.attempted} attempted); nothing was sent.`,
        extra,
      )
    case 'ContractPaused':
      return failure(
        'TOKEN_PAUSED',
        `That is paused on the token (${['transfers', 'minting', 'burning'][Number(args.feature)] ?? `feature ${args.feature}`}); nothing was sent.`,
        extra,
      )
    case 'LastAdminCannotRenounce':
      return failure(
        'LAST_ADMIN_CANNOT_RENOUNCE',
        `${from} is the token’s last admin: it can only give the role up with renounceLastAdmin; nothing was sent.`,
        extra,
      )
    case 'NotSoleAdmin':
      return failure(
        'NOT_SOLE_ADMIN',
        `${from} is not the token’s only admin, so renounceLastAdmin does not apply; nothing was sent.`,
        extra,
      )
    case 'InvalidReceiver':
      return failure('INVALID_RECEIVER', `The token refuses ${args.receiver} as a receiver; nothing was sent.`, extra)
    default:
      return failure('SIMULATION_REVERTED', `The token refused the call from ${from} with ${revert.name}; nothing was sent.`, extra)
  }
}
