import type { Hex } from 'viem'
import { generateAgentKey } from '../lib/deploy/agents/agentKeys.js'
import { type LatencyProxy, sequentialRoundTrips, startLatencyProxy } from '../tests/support/latencyProxy.js'
import { type NpmStart, startNpmStart } from '../tests/support/npmStart.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { startServiceParts } from '../tests/support/serviceParts.js'

/** The fields of a token born ready, as an agent would send them. */
const BORN_READY = {
  admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  initialSupply: '1000000',
  supplyCap: '10000000',
  description: 'The points token of the Example community.',
  website: 'https://example.com',
}

/** Production's distances: Base RPC, KMS, Upstash (round trip per call). */
const RPC_MS = 60
const KMS_MS = 40
const STORE_MS = 5
const INSTANCES = 3
/** The documented longest wait for the nonce lock. */
const LOCK_WAIT_MS = 20_000

type Answer = { ok: boolean; code?: string; txHash?: Hex; ms: number }

/**
 * Deploys at production latency: delaying proxies in front of anvil (60 ms), the KMS-compatible server
 * (40 ms) and the Upstash front (5 ms); three `npm start` processes over them; one deploy alone, then 40 and 100
 * agents at once, spread over the three. Prints deploys per RPC round trip, requests per deploy, answer times, and the
 * single deploy's critical path in round trips.
 */
export async function benchDeployLatency(): Promise<Record<string, number | string>> {
  const agent = generateAgentKey()
  const redis = await startRedisServer()
  const parts = await startServiceParts({
    redisSocket: redis.socket,
    allowlist: [agent.digest],
    storePrefix: `lat${process.pid}:`,
    env: { DEPLOY_DAILY_CAP: '100000' },
  })
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
  }
  let instances: NpmStart[] = []
  try {
    instances = await Promise.all(Array.from({ length: INSTANCES }, () => startNpmStart(env)))
    let serial = 0
    const deploy = async (instance: NpmStart): Promise<Answer> => {
      const n = serial++
      const started = performance.now()
      const response = await fetch(`${instance.url}/api/b20-skill`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
        // Every other deploy is born ready (supply, cap, metadata): its path costs what a plain one's does.
        body: JSON.stringify({ action: 'agent_deploy', name: `Latency ${n}`, symbol: `LAT${n}`, ...(n % 2 ? BORN_READY : {}) }),
      })
      const body = (await response.json()) as { ok: boolean; code?: string; txHash?: Hex }
      return { ok: body.ok, code: body.code, txHash: body.txHash, ms: performance.now() - started }
    }
    // Warm-up: each instance's first deploy reads the KMS public key and checks the chain id once.
    for (const instance of instances) {
      const warm = await deploy(instance)
      if (!warm.ok) throw new Error(`warm-up deploy failed: ${warm.code}`)
    }

    // One deploy alone: its answer time and what lies on its critical path.
    const alone: { ms: number; rpcWaves: number; kmsCalls: number }[] = []
    for (let i = 0; i < 5; i++) {
      const from = performance.now()
      const kmsBefore = proxies.kms.requests.length
      const answer = await deploy(instances[i % INSTANCES]!)
      const to = performance.now()
      if (!answer.ok) throw new Error(`single deploy failed: ${answer.code}`)
      alone.push({
        ms: answer.ms,
        rpcWaves: sequentialRoundTrips(proxies.rpc.requests, from, to),
        kmsCalls: proxies.kms.requests.length - kmsBefore,
      })
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const percentile = (values: number[], p: number) =>
      [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!

    const burst = async (count: number) => {
      const before = { rpc: proxies.rpc.requests.length, kms: proxies.kms.requests.length, store: proxies.store.requests.length }
      const started = performance.now()
      const answers = await Promise.all(Array.from({ length: count }, (_, i) => deploy(instances[i % INSTANCES]!)))
      const seconds = (performance.now() - started) / 1000
      const after = { rpc: proxies.rpc.requests.length, kms: proxies.kms.requests.length, store: proxies.store.requests.length }
      const sent = answers.filter((a) => a.ok)
      const nonces = await Promise.all(
        sent.map(async (a) => {
          const receipt = await parts.chain.publicClient.waitForTransactionReceipt({ hash: a.txHash!, timeout: 30_000 })
          if (receipt.status !== 'success') throw new Error(`deploy ${a.txHash} reverted`)
          return (await parts.chain.publicClient.getTransaction({ hash: a.txHash! })).nonce
        }),
      )
      nonces.sort((a, b) => a - b)
      const consecutive = nonces.every((n, i) => i === 0 || n === nonces[i - 1]! + 1)
      const refused = answers.filter((a) => !a.ok).map((a) => a.code)
      return {
        seconds,
        answers,
        sent: sent.length,
        consecutive,
        refused,
        perDeploy: (what: keyof typeof before) => (after[what] - before[what]) / Math.max(1, sent.length),
      }
    }
    const forty = await burst(40)
    const hundred = await burst(100)
    const perRoundTrip = (b: { sent: number; seconds: number }) => Math.round((b.sent / b.seconds) * (RPC_MS / 1000) * 100) / 100
    const ms = (b: { answers: Answer[] }, p: number) =>
      Math.round(
        percentile(
          b.answers.map((a) => a.ms),
          p,
        ),
      )
    return {
      'one deploy alone: answer ms (median of 5)': Math.round(median(alone.map((a) => a.ms))),
      'one deploy alone: RPC round trips on its path (goal <= 3)': median(alone.map((a) => a.rpcWaves)),
      'one deploy alone: KMS calls (goal 1)': median(alone.map((a) => a.kmsCalls)),
      '40 agents: deploys per RPC round trip (goal >= 0.45)': perRoundTrip(forty),
      '40 agents: deploys per second': Math.round((forty.sent / forty.seconds) * 10) / 10,
      '40 agents: broadcast, nonces consecutive, mined': `${forty.sent}/40, ${forty.consecutive ? 'yes' : 'NO'}${forty.refused.length ? `, refused: ${forty.refused.join(' ')}` : ''}`,
      '40 agents: RPC requests per deploy': Math.round(forty.perDeploy('rpc') * 10) / 10,
      '40 agents: KMS requests per deploy': Math.round(forty.perDeploy('kms') * 10) / 10,
      '40 agents: store requests per deploy (goal <= 12)': Math.round(forty.perDeploy('store') * 10) / 10,
      '40 agents: answer ms p50 / p99': `${ms(forty, 0.5)} / ${ms(forty, 0.99)}`,
      '100 agents: broadcast within the 20 s wait': `${hundred.sent}/100${hundred.refused.length ? `, refused: ${[...new Set(hundred.refused)].join(' ')}` : ''}, slowest ${Math.round(Math.max(...hundred.answers.map((a) => a.ms)))} ms (limit ${LOCK_WAIT_MS})`,
      '100 agents: deploys per RPC round trip': perRoundTrip(hundred),
      '100 agents: store requests per deploy': Math.round(hundred.perDeploy('store') * 10) / 10,
      '100 agents: answer ms p50 / p99': `${ms(hundred, 0.5)} / ${ms(hundred, 0.99)}`,
    }
  } finally {
    await Promise.all(instances.map((i) => i.stop()))
    await Promise.all(Object.values(proxies).map((p) => p.close()))
    await parts.close()
    await redis.stop()
  }
}
