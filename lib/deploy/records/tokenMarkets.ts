import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { type TokenMarket, tokenMarketSchema } from '../answers/answerFields.js'
import { tokenMarketKey } from '../keys.js'
import type { TransactionRecord } from '../sender/signedTransactions.js'

// A deployed token's market as the deploy side shows it (a receipt, an agent's history, the launches feed): read from
// where the launches' tick job keeps it (lib/launches/tokenMarket.ts writes it under {@link tokenMarketKey}).

/** A market as stored before it said its source (all were DexScreener's), read as one that does. */
const storedMarketSchema = tokenMarketSchema.partial({
  source: true,
  priceEth: true,
  volume24hEth: true,
  trades24h: true,
  lastTradeAt: true,
  marketCapEth: true,
})

/** A stored market, with the fields older records lack filled as a DexScreener market says them; null when not one. */
export function parseStoredMarket(value: string | null): TokenMarket | null {
  const stored = parseRecord(storedMarketSchema, value)
  if (!stored) return null
  return {
    source: stored.source ?? 'dexscreener',
    pairAddress: stored.pairAddress,
    dexId: stored.dexId,
    priceUsd: stored.priceUsd,
    priceEth: stored.priceEth ?? null,
    liquidity: stored.liquidity,
    volume24h: stored.volume24h,
    volume24hEth: stored.volume24hEth ?? null,
    trades24h: stored.trades24h ?? null,
    lastTradeAt: stored.lastTradeAt ?? null,
    marketCapEth: stored.marketCapEth ?? null,
    pairUrl: stored.pairUrl,
    firstSeenAt: stored.firstSeenAt,
  }
}

/** Whether a deploy created its token: confirmed, or replaced by a copy that was. */
export function isDeployed(record: Pick<TransactionRecord, 'status' | 'replacementStatus'>): boolean {
  return record.status === 'confirmed' || (record.status === 'replaced' && record.replacementStatus === 'confirmed')
}

/** The markets of some tokens, in order (null where none is known), in one store round trip. */
export async function readTokenMarkets(
  store: Store,
  storePrefix: string,
  chainId: number,
  addresses: readonly string[],
): Promise<(TokenMarket | null)[]> {
  if (addresses.length === 0) return []
  const values = await store.getMany(addresses.map((address) => tokenMarketKey(storePrefix, chainId, address)))
  return values.map(parseStoredMarket)
}
