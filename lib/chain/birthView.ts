import { type Address, decodeEventLog, formatUnits, getAddress, type Hex, isAddressEqual, type Log, parseAbi, zeroAddress } from 'viem'
import { readMetadataDataUri, readTokenBirth, type TokenMetadata } from '../chain/tokenBirth.js'

/** What a deploy gives its token at birth, as every answer shows it: amounts in whole tokens, null where none. */
export type BirthView = {
  /** Holds the admin role; null: the token has no admin, ever (a fixed supply). */
  admin: Address | null
  /** Holds the mint role, as granted at birth (the admin, on every deploy of this service); null: nobody can mint. */
  minter: Address | null
  /** Whole tokens minted at creation (a pooled launch's pool share included); null: none. */
  initialSupply: string | null
  /** The cap from birth in whole tokens; null: no cap (the default, type(uint128).max). */
  supplyCap: string | null
  /** Who received `initialSupply` (of a pooled launch, what the pool did not take); null: nobody. */
  recipient: Address | null
  /** The ERC-7572 fields set as `contractURI`; null: none. */
  metadata: TokenMetadata | null
}

/**
 * Reads a deploy's createB20 calldata back into what its token got at birth (pure), so the deploy answer, the receipt,
 * `list_deploys` and the webhooks all say what the transaction really asks for, records from before these fields too.
 */
export function birthViewOf(data: Hex, decimals: number): BirthView {
  const birth = readTokenBirth(data)
  const whole = (units: bigint | null | undefined) => (units === null || units === undefined ? null : formatUnits(units, decimals))
  return {
    admin: birth?.admin ?? null,
    minter: birth?.minter ?? null,
    initialSupply: whole(birth?.mint || birth?.poolMint ? (birth.mint?.units ?? 0n) + (birth.poolMint?.units ?? 0n) : undefined),
    supplyCap: whole(birth?.supplyCap),
    recipient: birth?.mint?.to ?? null,
    metadata: birth?.contractUri ? readMetadataDataUri(birth.contractUri) : null,
  }
}

/**
 * Base units of a token's whole supply as its creation's calldata asks for it (pure): the cap set at birth, else what
 * was minted then (a pooled launch's share included); null when neither (no supply asked for, or not a createB20).
 */
export function wholeSupplyOf(data: Hex): bigint | null {
  const birth = readTokenBirth(data)
  if (birth?.supplyCap != null) return birth.supplyCap
  // The whole supply in the pool is one mint, the pool's: no recipient's mint beside it.
  return birth?.mint || birth?.poolMint ? (birth.mint?.units ?? 0n) + (birth.poolMint?.units ?? 0n) : null
}

/** The supply fields `list_deploys` entries and webhook events carry, from a deploy's calldata. */
export function supplyFieldsOf(data: Hex, decimals: number): Pick<BirthView, 'initialSupply' | 'supplyCap' | 'recipient'> {
  const { initialSupply, supplyCap, recipient } = birthViewOf(data, decimals)
  return { initialSupply, supplyCap, recipient }
}

const transferEventAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)'])

/** One mint a creation transaction made: to whom, in whole tokens and in base units. */
export type Minted = { to: Address; amount: string; units: string }

/** The mints in a receipt's logs (pure): the token's own `Transfer` events from the zero address, in log order. */
export function mintsInLogs(logs: readonly Pick<Log, 'address' | 'data' | 'topics'>[], token: Address, decimals: number): Minted[] {
  const minted: Minted[] = []
  for (const log of logs) {
    if (!isAddressEqual(log.address, token)) continue
    try {
      const { args } = decodeEventLog({ abi: transferEventAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] })
      if (!isAddressEqual(args.from, zeroAddress)) continue
      minted.push({ to: getAddress(args.to), amount: formatUnits(args.value, decimals), units: args.value.toString() })
    } catch {
      // another event of the token (a role, the cap, the metadata)
    }
  }
  return minted
}
