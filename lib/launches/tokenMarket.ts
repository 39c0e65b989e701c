import type { TokenMarket } from '../deploy/answers/answerFields.js'
import { deployHistoryKeys, tokenMarketKey } from '../deploy/keys.js'
import { isDeployed, readTokenMarkets } from '../deploy/records/tokenMarkets.js'
import { parseTransactionRecord, type TransactionRecord } from '../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../deploy/services.js'
import { notifyAgent } from '../deploy/webhooks/outbox.js'
import { pairToToken } from '../market/normalize.js'
import { errorName } from '../platform/log.js'
import { listIndexed } from '../store/recordIndex.js'
import { type DexScreenerClient, TOKENS_BATCH_SIZE } from '../upstream/dexscreener.js'
import type { RequestBudget } from '../upstream/jsonGetter.js'
import type { Pair } from '../upstream/pair.js'

// A deployed token's market as DexScreener lists it: the tick's job follows the tokens of the last 7 days there (one
// call per 30 tokens, within the read side's budget), tells an agent its token is listed (`token.listed`), and keeps
// the market where the feed, the receipt and an agent's history read it (lib/deploy/records/tokenMarkets.ts).

export type { TokenMarket }

/** How long after its deploy a token's market is followed. */
export const MARKET_FOLLOW_MS = 7 * 86_400_000
/** Deploys the tick follows at most (the newest): 10 DexScreener calls a tick. */
const MARKET_DEPLOYS_MAX = 300
/** How long a market is kept (as long as the deploy records). */
const MARKET_TTL_MS = 30 * 86_400_000

/** Parameters of {@link marketOfToken}. */
export type MarketOfTokenParameters = { address: string; pairs: readonly Pair[]; firstSeenAt: string }

/**
 * A token's market from DexScreener's Base pairs (pure): of the pairs where it is the base token, the one with the
 * most liquidity (then 24h volume); null when it has none.
 */
export function marketOfToken({ address, pairs, firstSeenAt }: MarketOfTokenParameters): TokenMarket | null {
  const own = pairs.filter((pair) => pair.baseToken.address.toLowerCase() === address.toLowerCase()).map((pair) => pairToToken(pair, 1))
  if (own.length === 0) return null
  const best = own.reduce((a, b) => (b.liquidity > a.liquidity || (b.liquidity === a.liquidity && b.volume24h > a.volume24h) ? b : a))
  return {
    source: 'dexscreener',
    pairAddress: best.pairAddress,
    dexId: best.dexId,
    priceUsd: best.priceUsd,
    priceEth: null,
    liquidity: best.liquidity,
    marketCapEth: null,
    volume24h: best.volume24h,
    volume24hEth: null,
    trades24h: null,
    lastTradeAt: null,
    pairUrl: best.pairUrl,
    firstSeenAt,
  }
}

/** What one refresh of the deployed tokens' markets did. */
export type RefreshDeployMarketsReturnType = {
  skipped?: 'no shared store'
  /** Deployed tokens of the last 7 days followed. */
  tokens: number
  calls: number
  failedCalls: number
  /** Markets written (new or changed). */
  updated: number
  /** Tokens seen trading for the first time (`token.listed`). */
  listed: number
}

/** Parameters of {@link refreshDeployMarkets}. */
export type RefreshDeployMarketsParameters = {
  services: DeployServices
  /** DexScreener, within the service-wide budget. */
  upstream: DexScreenerClient
  /** Reserves slots of that budget in one store call; answers how many it got. */
  reserveUpstream: (count: number) => Promise<number>
}

/**
 * Follows the tokens deployed in the last 7 days to the market: one DexScreener `tokens/v1` call per 30 of them,
 * within the shared budget (reserved in one script). A changed market is written (one script for all); a token seen
 * trading for the first time is told to its agent (`token.listed`). A failed call leaves its tokens as they were.
 */
export async function refreshDeployMarkets({
  services,
  upstream,
  reserveUpstream,
}: RefreshDeployMarketsParameters): Promise<RefreshDeployMarketsReturnType> {
  const { store, config } = services
  const none = { tokens: 0, calls: 0, failedCalls: 0, updated: 0, listed: 0 }
  if (!store) return { skipped: 'no shared store', ...none }
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const now = services.clock.now()
  const values = await listIndexed(store, { indexKey: keys.recent, recordPrefix: keys.recordPrefix, limit: MARKET_DEPLOYS_MAX })
  const byToken = new Map<string, TransactionRecord>()
  for (const record of values.map(parseTransactionRecord))
    if (record && now - record.createdAt <= MARKET_FOLLOW_MS && isDeployed(record))
      byToken.set(record.predictedAddress.toLowerCase(), record)
  const addresses = [...byToken.keys()]
  if (addresses.length === 0) return none
  const batches = Array.from({ length: Math.ceil(addresses.length / TOKENS_BATCH_SIZE) }, (_, i) =>
    addresses.slice(i * TOKENS_BATCH_SIZE, (i + 1) * TOKENS_BATCH_SIZE),
  )
  const preAdmitted: RequestBudget = { remaining: await reserveUpstream(batches.length) }
  const [previous, answers] = await Promise.all([
    readTokenMarkets(store, config.storePrefix, config.chainId, addresses),
    Promise.allSettled(batches.map((batch) => upstream.tokens(batch, { preAdmitted }))),
  ])
  const known = new Map(addresses.map((address, i) => [address, previous[i] ?? null]))
  const written: { key: string; value: string; ttlMs: number }[] = []
  const listed: { record: TransactionRecord; market: TokenMarket }[] = []
  for (const [i, answer] of answers.entries()) {
    if (answer.status === 'rejected') {
      services.logger.warn('deploy_market_failed', { error: errorName(answer.reason) })
      continue
    }
    for (const address of batches[i]!) {
      const before = known.get(address) ?? null
      const market = marketOfToken({ address, pairs: answer.value, firstSeenAt: before?.firstSeenAt ?? new Date(now).toISOString() })
      if (!market || JSON.stringify(market) === JSON.stringify(before)) continue
      written.push({
        key: tokenMarketKey(config.storePrefix, config.chainId, address),
        value: JSON.stringify(market),
        ttlMs: MARKET_TTL_MS,
      })
      if (!before) listed.push({ record: byToken.get(address)!, market })
    }
  }
  if (written.length > 0) await store.writeMany({ entries: written })
  for (const { record, market } of listed) {
    // token.listed keeps the fields it always had: the chain's are the launches feed's.
    const { pairAddress, dexId, priceUsd, liquidity, pairUrl } = market
    const details = { pairAddress, dexId, priceUsd, liquidity, pairUrl }
    notifyAgent({
      webhooks: services.webhooks,
      background: services.background,
      type: 'token.listed',
      record,
      details: { tokenAddress: record.predictedAddress, ...details },
    })
  }
  const failedCalls = answers.filter((answer) => answer.status === 'rejected').length
  return { tokens: addresses.length, calls: batches.length, failedCalls, updated: written.length, listed: listed.length }
}
