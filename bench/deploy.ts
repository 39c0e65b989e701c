import { startDeployStack } from '../tests/support/deployStack.js'
import { startRedisServer } from '../tests/support/redisServer.js'

const DEPLOYS = 30
const AGENTS = 10
const EACH = 5

/** The deploy benchmark: RPC and KMS requests per deploy, latency, sequential deploys per second. */
export async function benchDeploy(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const stack = await startDeployStack({ storeKind: 'upstash', redisSocket: redis.socket, env: { DEPLOY_DAILY_CAP: '100000' } })
  try {
    // One warm-up deploy: the chain-id check and GetPublicKey happen once per process.
    await stack.post({ action: 'agent_deploy', name: 'Warm Up', symbol: 'WARM' })

    const rpcBefore = stack.chain.rpcMethods.length
    const kmsBefore = stack.kms.calls.length
    const latencies: number[] = []
    const started = performance.now()
    for (let i = 0; i < DEPLOYS; i++) {
      const t = performance.now()
      const { body } = await stack.post({ action: 'agent_deploy', name: `Bench ${i}`, symbol: `B${i}` })
      if (!body.ok) throw new Error(`deploy ${i} failed: ${body.code}`)
      latencies.push(performance.now() - t)
    }
    const sequentialSeconds = (performance.now() - started) / 1000
    const rpc = stack.chain.rpcMethods.slice(rpcBefore)
    const kms = stack.kms.calls.slice(kmsBefore)

    // 10 agents, each deploying 5 times back to back: 9 always wait for the lock while one deploys.
    const setsBefore = stack.upstash!.commands.filter((c) => c === 'SET').length
    const concurrentStart = performance.now()
    await Promise.all(
      Array.from({ length: AGENTS }, async (_, a) => {
        for (let i = 0; i < EACH; i++) {
          const { body } = await stack.post({ action: 'agent_deploy', name: `Conc ${a} ${i}`, symbol: `K${a}X${i}` })
          if (!body.ok) throw new Error(`concurrent deploy failed: ${body.code}`)
        }
      }),
    )
    const concurrentSeconds = (performance.now() - concurrentStart) / 1000
    // Each deploy SETs twice when it gets its turn (the lock, the nonce claim); every other SET is a waiter asking.
    const lockAsks = stack.upstash!.commands.filter((c) => c === 'SET').length - setsBefore - 2 * AGENTS * EACH

    latencies.sort((a, b) => a - b)
    const perMethod = new Map<string, number>()
    for (const m of rpc) perMethod.set(m, (perMethod.get(m) ?? 0) + 1)
    return {
      'KMS GetPublicKey in the whole process (goal <= 1)': stack.kms.calls.filter((c) => c === 'GetPublicKey').length,
      'KMS Sign per deploy (goal 1)': kms.filter((c) => c === 'Sign').length / DEPLOYS,
      'KMS GetPublicKey per warm deploy (goal 0)': kms.filter((c) => c === 'GetPublicKey').length / DEPLOYS,
      'RPC requests per deploy (goal <= 6)': rpc.length / DEPLOYS,
      'RPC methods': [...perMethod.entries()].map(([m, n]) => `${m}×${n / DEPLOYS}`).join(' '),
      'deploy latency p50 ms (local stack)': Math.round(latencies[Math.floor(DEPLOYS / 2)]!),
      'deploy latency p90 ms (local stack)': Math.round(latencies[Math.floor(DEPLOYS * 0.9)]!),
      'sequential deploys per second': Math.round((DEPLOYS / sequentialSeconds) * 10) / 10,
      [`${AGENTS} concurrent agents x ${EACH} deploys through the lock, per second (goal >= 25)`]:
        Math.round(((AGENTS * EACH) / concurrentSeconds) * 10) / 10,
      'store lock requests by waiters per second (bound: 1 per 20 ms per waiter = 450/s)': Math.round(lockAsks / concurrentSeconds),
    }
  } finally {
    await stack.close()
    await redis.stop()
  }
}
