// Which of B20's built-in roles the service's signer still holds on the tokens it created, for many tokens at once:
// the launches feed's `powers.signerRoles` and an agent's tokens (`npm run agents -- tokens`). The signer asked of is each token's creator,
// the account that sent its createB20, as its deploy record names it; every token is read in one eth_call.
import { type Address, decodeFunctionData, getAddress, type Hex, isAddressEqual, type PublicClient } from 'viem'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, predictB20Address } from '../../chain/b20.js'
import { batchCallTo } from '../../chain/batchAccount.js'
import { readSignerRoles } from '../../chain/tokenPowers.js'
import { listIndexed } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import { parseTransactionRecord, type TransactionRecord } from '../sender/signedTransactions.js'
import { isDeployed } from './tokenMarkets.js'

/** The salt of a createB20, sent to the factory or in a pooled launch's batch; null when the calldata is neither. */
function createB20Salt(data: Hex): Hex | null {
  const call = batchCallTo(data, B20_FACTORY_ADDRESS)?.data ?? data
  try {
    const decoded = decodeFunctionData({ abi: b20FactoryAbi, data: call })
    return decoded.functionName === 'createB20' ? (decoded.args[1] as Hex) : null
  } catch {
    return null
  }
}

/**
 * The account that sent a deploy's createB20: its record's `from`; for a record written before `from` was kept, the
 * one of `known` its token's address is derived from (B20 hashes the sender with the salt, so none other can match);
 * else null.
 */
export function creatorOf(record: TransactionRecord, known: readonly Address[]): Address | null {
  if (record.from) return getAddress(record.from)
  const salt = createB20Salt(record.data)
  if (!salt) return null
  return known.find((account) => isAddressEqual(predictB20Address(record.variant, account, salt), record.predictedAddress)) ?? null
}

/** Parameters of {@link readCreatorRoles}. */
export type ReadCreatorRolesParameters = {
  client: PublicClient
  /** The deploys whose tokens exist (confirmed), plain or pooled. */
  records: readonly TransactionRecord[]
  /** The service's signer when known without KMS (`SIGNER_ADDRESS`): what an older record's creator is looked for among. */
  signer?: Address | null
}

/** Per token (its lower-case address): the built-in roles its creator still holds by name, or null when unknown. */
export type ReadCreatorRolesReturnType = Map<string, string[] | null>

/**
 * Reads the roles each token's creator still holds, every token in one eth_call (Multicall3: hasRole for each built-in
 * role of each token). A token whose creator is not known, or whose read failed, is null; a failed RPC call throws.
 */
export async function readCreatorRoles({
  client,
  records,
  signer = null,
}: ReadCreatorRolesParameters): Promise<ReadCreatorRolesReturnType> {
  const known = [...new Set([...(signer ? [signer] : []), ...records.flatMap((r) => (r.from ? [getAddress(r.from)] : []))])]
  const roles: ReadCreatorRolesReturnType = new Map()
  const asked: { token: Address; signer: Address }[] = []
  for (const record of records) {
    if (record.kind !== 'deploy' && record.kind !== 'launch') continue
    const token = record.predictedAddress.toLowerCase()
    if (roles.has(token)) continue
    const creator = creatorOf(record, known)
    roles.set(token, null)
    if (creator) asked.push({ token: getAddress(token), signer: creator })
  }
  const held = await readSignerRoles({ client, tokens: asked })
  for (const [i, { token }] of asked.entries()) roles.set(token.toLowerCase(), held[i] ?? null)
  return roles
}

/** Most of an agent's tokens `npm run agents -- tokens` reads, newest first: as many as the launches feed holds. */
export const AGENT_TOKENS_MAX = 300

/** One token an agent launched, and the roles the service's signer still holds on it. */
export type AgentToken = {
  address: Address
  symbol: string
  /** `broadcast`: sent, not seen mined yet; `confirmed`: the token exists. */
  status: 'broadcast' | 'confirmed'
  /** The built-in roles by name (empty: none); null: unknown (not mined yet, its creator not known, or the read failed). */
  signerRoles: string[] | null
}

/** Parameters of {@link listAgentTokens}. */
export type ListAgentTokensParameters = {
  store: Store
  keys: DeployHistoryKeys
  /** The agent: its key's digest, or a paid agent's id (`x402:<payer>`). */
  agentDigest: string
  client: PublicClient
  signer?: Address | null
}

/** What {@link listAgentTokens} answers: the tokens, and whether the chain answered (no: every `signerRoles` is null). */
export type ListAgentTokensReturnType = { tokens: AgentToken[]; chainAnswered: boolean }

/**
 * The tokens an agent launched (its deploy history's deploys and pooled launches, none that reverted), newest first,
 * with the roles the service's signer still holds on each: two store round trips and one eth_call.
 */
export async function listAgentTokens({
  store,
  keys,
  agentDigest,
  client,
  signer,
}: ListAgentTokensParameters): Promise<ListAgentTokensReturnType> {
  const values = await listIndexed(store, { indexKey: keys.agent(agentDigest), recordPrefix: keys.recordPrefix, limit: AGENT_TOKENS_MAX })
  const records = values
    .map(parseTransactionRecord)
    .filter((r): r is TransactionRecord => r !== null && r.agent === agentDigest && (r.kind === 'deploy' || r.kind === 'launch'))
    .filter((r) => r.status !== 'reverted' && !(r.status === 'replaced' && r.replacementStatus === 'reverted'))
  let chainAnswered = true
  const roles = await readCreatorRoles({ client, records: records.filter(isDeployed), signer }).catch(() => {
    chainAnswered = false
    return new Map<string, null>()
  })
  const tokens = records.map((record) => ({
    address: getAddress(record.predictedAddress),
    symbol: record.symbol,
    status: isDeployed(record) ? ('confirmed' as const) : ('broadcast' as const),
    signerRoles: roles.get(record.predictedAddress.toLowerCase()) ?? null,
  }))
  return { tokens, chainAnswered }
}
