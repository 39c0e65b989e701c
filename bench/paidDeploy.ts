import { generateAgentKey } from '../lib/deploy/agents/agentKeys.js'
import { type LatencyProxy, sequentialRoundTrips, startLatencyProxy } from '../tests/support/latencyProxy.js'
import { type NpmStart, startNpmStart } from '../tests/support/npmStart.js'
import { fundedPayer, startPaidDoorParts } from '../tests/support/paidDoorParts.js'
import { createPayingClient } from '../tests/support/payingClient.js'
import { startRedisServer } from '../tests/support/redisServer.js'

/** Production's distances: Base RPC, KMS, Upstash, and a hosted facilitator (round trip per call). */
const RPC_MS = 60
const KMS_MS = 40
const STORE_MS = 5
const FACILITATOR_MS = 80
/** Deploys measured of each kind, one after another (after one of each to warm the instance). */
const ROUNDS = 5

/** What one request cost, counted at the proxies and the store front. */
type Cost = { ms: number; rpc: number; rpcWaves: number; kms: number; store: number; facilitator: string[] }

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * What a paid deploy costs against an allowlisted one, at production latency (`npm run bench -- paid-deploy`):
 * delaying proxies in front of anvil (60 ms), the KMS server (40 ms), the Upstash front (5 ms) and the local
 * facilitator (80 ms); one `npm start`. An allowlisted deploy, then a paid one by @x402/fetch (its unpaid 402 and
 * its paid request, counted apart): RPC requests and round trips on the path, KMS calls, store commands, facilitator
 * calls. The goal: a paid deploy adds a verify, a settle and one receipt read to an allowlisted one, and nothing more.
 */
export async function benchPaidDeploy(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const parts = await startPaidDoorParts({ redisSocket: redis.socket, storePrefix: `paidbench${process.pid}:` })
  const proxies: Record<'rpc' | 'kms' | 'store' | 'facilitator', LatencyProxy> = {
    rpc: await startLatencyProxy({ target: parts.chain.rpcUrl, delayMs: RPC_MS }),
    kms: await startLatencyProxy({ target: parts.kms.url, delayMs: KMS_MS }),
    store: await startLatencyProxy({ target: parts.upstash.url, delayMs: STORE_MS }),
    facilitator: await startLatencyProxy({ target: parts.facilitator.url, delayMs: FACILITATOR_MS }),
  }
  const agent = generateAgentKey()
  let instance: NpmStart | undefined
  try {
    instance = await startNpmStart({
      ...parts.env,
      DEPLOY_ALLOWLIST: `${parts.env.DEPLOY_ALLOWLIST},${agent.digest}`,
      BASE_RPC_URL: proxies.rpc.url,
      AWS_ENDPOINT_URL_KMS: proxies.kms.url,
      UPSTASH_REDIS_REST_URL: proxies.store.url,
      X402_FACILITATOR_URL: proxies.facilitator.url,
      X402_PAYER_DAILY_CAP: '1000',
      DEPLOY_DAILY_CAP: '1000',
    })
    const url = instance.url
    const measure = async (run: () => Promise<Response>): Promise<Cost & { body: Record<string, unknown> }> => {
      const before = {
        rpc: proxies.rpc.requests.length,
        kms: proxies.kms.requests.length,
        store: parts.upstash.commands.length,
        facilitator: parts.facilitator.calls.length,
      }
      const from = performance.now()
      const response = await run()
      const body = (await response.json()) as Record<string, unknown>
      const to = performance.now()
      return {
        body,
        ms: to - from,
        rpc: proxies.rpc.requests.length - before.rpc,
        rpcWaves: sequentialRoundTrips(proxies.rpc.requests, from, to),
        kms: proxies.kms.requests.length - before.kms,
        store: parts.upstash.commands.length - before.store,
        facilitator: parts.facilitator.calls.slice(before.facilitator),
      }
    }
    let n = 0
    const keyed = () =>
      measure(() =>
        fetch(`${url}/api/b20-skill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
          body: JSON.stringify({ action: 'agent_deploy', name: `Keyed ${n}`, symbol: `KEYED${n++}` }),
        }),
      )
    const unpaid = () =>
      measure(() =>
        fetch(`${url}/api/x402/deploy`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"Ask","symbol":"ASK"}',
        }),
      )
    const paid = async () => {
      const client = createPayingClient({ rpcUrl: parts.chain.rpcUrl, privateKey: await fundedPayer(parts) })
      return measure(() =>
        client.fetch(`${url}/api/x402/deploy`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Paid ${n}`, symbol: `PAID${n++}` }),
        }),
      )
    }
    // Warm-up: the instance reads the KMS public key and checks the chain id once.
    for (const run of [keyed, paid]) if ((await run()).body.ok !== true) throw new Error('warm-up deploy failed')
    const runs = async (run: () => Promise<Cost & { body: Record<string, unknown> }>) => {
      const costs: Cost[] = []
      for (let i = 0; i < ROUNDS; i++) {
        const cost = await run()
        if (cost.body.ok === false && cost.body.code !== 'PAYMENT_REQUIRED') throw new Error(`deploy failed: ${String(cost.body.code)}`)
        costs.push(cost)
      }
      return (what: Exclude<keyof Cost, 'facilitator'>) => Math.round(median(costs.map((c) => c[what])) * 10) / 10
    }
    const [allowlisted, asked, bought] = [await runs(keyed), await runs(unpaid), await runs(paid)]
    // A paid request alone, without the 402 round before it: the client's whole exchange less the 402's cost.
    const facilitatorCalls = parts.facilitator.calls.slice(-ROUNDS * 2)
    return {
      'allowlisted deploy: RPC requests / round trips on its path': `${allowlisted('rpc')} / ${allowlisted('rpcWaves')}`,
      'allowlisted deploy: KMS calls / store commands': `${allowlisted('kms')} / ${allowlisted('store')}`,
      'allowlisted deploy: answer ms (median)': allowlisted('ms'),
      'unpaid request (the 402): RPC / KMS requests (goal 0 / 0)': `${asked('rpc')} / ${asked('kms')}`,
      'unpaid request (the 402): store commands': asked('store'),
      'paid deploy (the 402, then the paid request): RPC requests / round trips on its path': `${bought('rpc')} / ${bought('rpcWaves')}`,
      'paid deploy: RPC requests more than allowlisted (goal 1: the settlement receipt)':
        Math.round((bought('rpc') - allowlisted('rpc')) * 10) / 10,
      'paid deploy: facilitator calls per deploy (goal 2: verify, settle)': `${facilitatorCalls.length / ROUNDS} (${[...new Set(facilitatorCalls)].join(', ')})`,
      'paid deploy: KMS calls / store commands': `${bought('kms')} / ${bought('store')}`,
      'paid deploy: store commands more than allowlisted': Math.round((bought('store') - allowlisted('store')) * 10) / 10,
      'paid deploy: answer ms, the client’s whole exchange (median)': bought('ms'),
    }
  } finally {
    await instance?.stop()
    await Promise.all(Object.values(proxies).map((p) => p.close()))
    await parts.close()
    await redis.stop()
  }
}
