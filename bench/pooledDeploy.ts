import type { Hex } from 'viem'
import { generateAgentKey } from '../lib/deploy/agents/agentKeys.js'
import { type LatencyProxy, sequentialRoundTrips, startLatencyProxy } from '../tests/support/latencyProxy.js'
import { type NpmStart, startNpmStart } from '../tests/support/npmStart.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { startServiceParts } from '../tests/support/serviceParts.js'
import { deployUniswapV4 } from '../tests/support/uniswapV4.js'

/** Production's distances: Base RPC, KMS, Upstash (round trip per call), as `deploy-latency` takes them. */
const RPC_MS = 60
const KMS_MS = 40
const STORE_MS = 5
const RUNS = 5

const OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
/** A launch as an agent sends it: a billion tokens, 60 % in the pool at a 10 ETH market cap. */
const POOLED = { admin: OWNER, initialSupply: '1000000000', pool: { amount: '600000000', startingMarketCapEth: '10' } }
/** The same token without a pool. */
const PLAIN = { admin: OWNER, initialSupply: '1000000000' }

/** What the bench reads of a deploy answer. */
type DeployBody = {
  ok: boolean
  code?: string
  error?: string
  txHash: Hex
  pool?: { seedTxHashes: Hex[] }
  receipt?: { pool?: { status: string } }
}

type Answer = { body: DeployBody; ms: number; rpcWaves: number; kmsCalls: number; storeCalls: number }

/**
 * A pooled launch against a plain one at production latency (delaying proxies: RPC 60 ms, KMS 40 ms, store 5 ms; one
 * `npm start` over them), one at a time, alternating, five of each: the answer's time, the RPC round trips on its path,
 * the KMS and store calls, the gas the chain charged; and with `waitSeconds`, the time from the request to a pool that
 * trades (the receipt in the answer says `seeded`).
 */
export async function benchPooledDeploy(): Promise<Record<string, number | string>> {
  const agent = generateAgentKey()
  const redis = await startRedisServer()
  const parts = await startServiceParts({
    redisSocket: redis.socket,
    allowlist: [agent.digest],
    storePrefix: `pool${process.pid}:`,
    env: { DEPLOY_DAILY_CAP: '100000' },
  })
  const v4 = await deployUniswapV4(parts.chain)
  const proxies: Record<'rpc' | 'kms' | 'store', LatencyProxy> = {
    rpc: await startLatencyProxy({ target: parts.chain.rpcUrl, delayMs: RPC_MS }),
    kms: await startLatencyProxy({ target: parts.kms.url, delayMs: KMS_MS }),
    store: await startLatencyProxy({ target: parts.upstash.url, delayMs: STORE_MS }),
  }
  const env = {
    ...parts.env,
    BASE_RPC_URL: proxies.rpc.url,
    AWS_ENDPOINT_URL_KMS: proxies.kms.url,
    UPSTASH_REDIS_REST_URL: proxies.store.url,
    UNISWAP_V4_POOL_MANAGER: v4.poolManager,
    UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
    UNISWAP_V4_STATE_VIEW: v4.stateView,
    PERMIT2_ADDRESS: v4.permit2,
  }
  let instance: NpmStart | null = null
  try {
    instance = await startNpmStart(env)
    const door = instance.url
    let serial = 0
    const deploy = async (fields: Record<string, unknown>): Promise<Answer> => {
      const n = serial++
      const before = { kms: proxies.kms.requests.length, store: proxies.store.requests.length }
      const from = performance.now()
      const response = await fetch(`${door}/api/b20-skill`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
        body: JSON.stringify({ action: 'agent_deploy', name: `Pooled ${n}`, symbol: `PL${n}`, ...fields }),
      })
      const body = (await response.json()) as DeployBody
      const to = performance.now()
      if (!body.ok) throw new Error(`deploy ${n} refused: ${body.code} ${body.error}`)
      return {
        body,
        ms: to - from,
        rpcWaves: sequentialRoundTrips(proxies.rpc.requests, from, to),
        kmsCalls: proxies.kms.requests.length - before.kms,
        storeCalls: proxies.store.requests.length - before.store,
      }
    }
    const gasOf = async (hashes: Hex[]) => {
      let gas = 0n
      for (const hash of hashes) {
        const receipt = await parts.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 })
        if (receipt.status !== 'success') throw new Error(`${hash} reverted`)
        gas += receipt.gasUsed
      }
      return gas
    }
    // Warm-up: the first deploy reads the KMS public key and checks the chain id once; the first pooled launch sets the
    // signer's EIP-7702 delegation (its authorization is a second KMS call, once), as it would in production.
    await deploy(PLAIN)
    await deploy({ ...POOLED, waitSeconds: 6 })
    const plain: (Answer & { gas: bigint })[] = []
    const pooled: (Answer & { gas: bigint })[] = []
    const tradeable: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const a = await deploy(PLAIN)
      plain.push({ ...a, gas: await gasOf([a.body.txHash]) })
      const b = await deploy(POOLED)
      pooled.push({ ...b, gas: await gasOf([b.body.txHash, ...(b.body.pool?.seedTxHashes ?? [])]) })
      const waited = await deploy({ ...POOLED, waitSeconds: 6 })
      if (waited.body.receipt?.pool?.status !== 'seeded')
        throw new Error(`waited launch not seeded: ${JSON.stringify(waited.body.receipt)}`)
      tradeable.push(waited.ms)
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!
    const of = (answers: Answer[], key: 'ms' | 'rpcWaves' | 'kmsCalls' | 'storeCalls') => Math.round(median(answers.map((a) => a[key])))
    const gas = (answers: { gas: bigint }[]) => median(answers.map((a) => Number(a.gas)))
    return {
      'plain deploy: answer ms (median of 5)': of(plain, 'ms'),
      'plain deploy: RPC round trips on its path': of(plain, 'rpcWaves'),
      'plain deploy: KMS calls': of(plain, 'kmsCalls'),
      'plain deploy: store calls': of(plain, 'storeCalls'),
      'plain deploy: gas': gas(plain),
      'pooled launch: answer ms (median of 5)': of(pooled, 'ms'),
      'pooled launch: RPC round trips on its path': of(pooled, 'rpcWaves'),
      'pooled launch: KMS calls': of(pooled, 'kmsCalls'),
      'pooled launch: store calls': of(pooled, 'storeCalls'),
      'pooled launch: gas (its transactions)': gas(pooled),
      'pooled launch / plain: gas': Math.round((gas(pooled) / gas(plain)) * 100) / 100,
      'pooled launch with waitSeconds: request to a seeded pool, ms': Math.round(median(tradeable)),
    }
  } finally {
    await instance?.stop()
    await Promise.all(Object.values(proxies).map((p) => p.close()))
    await parts.close()
    await redis.stop()
  }
}
