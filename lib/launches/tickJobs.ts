import type { DeployTickContext } from '../deploy/tickJobs.js'
import type { TickJob } from '../platform/tickJob.js'
import type { ReadTickContext } from '../read/tickJobs.js'

// The launches' jobs of the tick (lib/tick/jobs.ts lists them): their markets, DexScreener's and their own pools'.
// Without a signer there are no launches to follow: neither job spends a store command.

/** WETH on Base: its price in the control room turns a launch's ETH price and volume into USD. */
const WETH_ADDRESS = '0x4200000000000000000000000000000000000006'

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
    const weth = tokens?.find((token) => token.address.toLowerCase() === WETH_ADDRESS)
    const wethUsd = weth?.priceUsd && /^\d+(\.\d+)?$/.test(weth.priceUsd) ? weth.priceUsd : null
    return { ...(await followPoolSwaps({ services, wethUsd })) }
  },
}
