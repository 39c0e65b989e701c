import { type Address, getAddress, type Hex, type Log, type PublicClient, parseAbi } from 'viem'

// Who may hold a B20 role, rebuilt from the token's own RoleGranted/RoleRevoked logs: B20 keeps no list of a role's
// members on chain (hasRole is a membership check only), so the logs are the one way to learn the names to ask
// about. The scan runs from the token's creation block in bounded chunks and can stop and go on later from where it
// stopped; the fold is pure.

/** B20's role events (base-std IB20): `sender` is who granted or revoked. */
export const roleEventsAbi = parseAbi([
  'event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)',
  'event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)',
])

/** Accounts that may hold each role (a role's hex id to its accounts, checksummed), as the logs read so far say. */
export type RoleCandidates = Record<Hex, Address[]>

/** One role event as the fold reads it, in chain order. */
export type RoleEvent = { kind: 'granted' | 'revoked'; role: Hex; account: Address }

/**
 * Folds role events, in chain order, into the accounts each role may hold now: a grant adds the account, a revoke
 * removes it. Pure. What it answers is a list of names to confirm with `hasRole`, never a verdict on its own.
 */
export function foldRoleEvents(start: RoleCandidates, events: readonly RoleEvent[]): RoleCandidates {
  const held = new Map<Hex, Set<Address>>(Object.entries(start).map(([role, accounts]) => [role as Hex, new Set(accounts)]))
  for (const { kind, role, account } of events) {
    const key = role.toLowerCase() as Hex
    const accounts = held.get(key) ?? new Set<Address>()
    if (kind === 'granted') accounts.add(getAddress(account))
    else accounts.delete(getAddress(account))
    held.set(key, accounts)
  }
  return Object.fromEntries([...held].filter(([, accounts]) => accounts.size > 0).map(([role, accounts]) => [role, [...accounts].sort()]))
}

/** Role events out of decoded logs, in chain order (block, then log index). */
export function roleEventsOf(logs: readonly Log<bigint, number, false, undefined, true, typeof roleEventsAbi>[]): RoleEvent[] {
  return [...logs]
    .sort((a, b) => Number((a.blockNumber ?? 0n) - (b.blockNumber ?? 0n)) || (a.logIndex ?? 0) - (b.logIndex ?? 0))
    .map((log) => ({
      kind: log.eventName === 'RoleGranted' ? 'granted' : 'revoked',
      role: log.args.role.toLowerCase() as Hex,
      account: getAddress(log.args.account),
    }))
}

/** Blocks one `eth_getLogs` of a scan asks for: within what public Base RPCs accept for a filtered range. */
export const ROLE_LOG_CHUNK_BLOCKS = 10_000n
/** Chunks one scan reads at most; the rest is left for the next scan (a read of the powers says how far it got). */
export const ROLE_LOG_CHUNKS_MAX = 5

/** Parameters of {@link scanRoleLogs}. */
export type ScanRoleLogsParameters = {
  client: PublicClient
  token: Address
  /** What earlier scans found (empty at the token's creation). */
  candidates: RoleCandidates
  /** The first block not yet read (the creation block at first). */
  fromBlock: bigint
  /** The last block to read (the head the caller reads the token at). */
  toBlock: bigint
  chunkBlocks?: bigint
  chunksMax?: number
}

/** What {@link scanRoleLogs} answers: the candidates after the blocks read, and the next block to read. */
export type ScanRoleLogsReturnType = { candidates: RoleCandidates; nextBlock: bigint; complete: boolean }

/**
 * Reads the token's role events from `fromBlock` up to `toBlock`, at most `chunksMax` chunks of `chunkBlocks` (one
 * `eth_getLogs` each, one after the other, so a scan's cost is bounded whatever the token's age), and folds them
 * into `candidates`. `complete` is false when blocks up to `toBlock` are left: `nextBlock` is where the next scan goes on.
 */
export async function scanRoleLogs({
  client,
  token,
  candidates,
  fromBlock,
  toBlock,
  chunkBlocks = ROLE_LOG_CHUNK_BLOCKS,
  chunksMax = ROLE_LOG_CHUNKS_MAX,
}: ScanRoleLogsParameters): Promise<ScanRoleLogsReturnType> {
  let next = fromBlock
  let folded = candidates
  for (let chunk = 0; chunk < chunksMax && next <= toBlock; chunk++) {
    const last = next + chunkBlocks - 1n < toBlock ? next + chunkBlocks - 1n : toBlock
    const logs = await client.getLogs({ address: token, events: roleEventsAbi, fromBlock: next, toBlock: last, strict: true })
    folded = foldRoleEvents(folded, roleEventsOf(logs))
    next = last + 1n
  }
  return { candidates: folded, nextBlock: next, complete: next > toBlock }
}
