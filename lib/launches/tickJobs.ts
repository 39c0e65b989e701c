import type { DeployTickContext } from '../deploy/tickJobs.js'
import { wethUsdAmong } from '../market/wethPrice.js'
import type { TickJob } from '../platform/tickJob.js'
import type { ReadTickContext } from '../read/tickJobs.js'

// The launches' jobs of the tick (lib/tick/jobs.ts lists them): their markets, DexScreener's and their own pools'.
// Without a signer there are no launches to follow: neither job spends a store command.

/** What the launches' jobs work from: the read side's upstream and room, the deploy side's store and chain. */
export type LaunchesTickContext = Pick<ReadTickContext, 'read' | 'room'> & DeployTickContext

/** Follows the tokens deployed in the last 7 days to the market on DexScreener, within the read side's budget. */
export const tokenMarketsJob: TickJob<LaunchesTickContext> = {
  name: 'markets',
  details: 'tokens, calls, failedCalls, updated, listed, skipped: deployed tokens followed to the market',
  needs: ['signer'],
  async run({ read, deploy }) {
    const [{ refreshDeployMarkets }, services] = await Promise.all([import('./tokenMarket.js'), deploy()])
    return { ...(await refreshDeployMarkets({ services, upstream: read.upstream, reserveUpstream: read.reserveUpstream })) }
  },
}

/** Launched pools' swaps, read from the chain: a bounded number of RPC calls whatever the number of launches. */
export const chainMarketsJob: TickJob<LaunchesTickContext> = {
  name: 'chainMarkets',
  details: 'pools, fromBlock, toBlock, swaps, updated, rpcCalls, skipped: launched pools’ swaps read from the chain',
  needs: ['signer'],
  async run({ deploy, room }) {
    const [{ followPoolSwaps }, services, tokens] = await Promise.all([
      import('./swapFollow.js'),
      deploy(),
      room().then((ready) => ready?.tokens ?? null),
    ])
    return { ...(await followPoolSwaps({ services, wethUsd: wethUsdAmong(tokens) })) }
  },
}
