import { startDeployStack } from '../tests/support/deployStack.js'
import { startRedisServer } from '../tests/support/redisServer.js'

const DEPLOYS = 30

/** The deploy benchmark of issue 3: RPC and KMS requests per deploy, latency, sequential deploys per second. */
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

    const concurrentStart = performance.now()
    await Promise.all(Array.from({ length: 10 }, (_, i) => stack.post({ action: 'agent_deploy', name: `Conc ${i}`, symbol: `K${i}` })))
    const concurrentSeconds = (performance.now() - concurrentStart) / 1000

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
      '10 concurrent deploys through the lock, per second': Math.round((10 / concurrentSeconds) * 10) / 10,
    }
  } finally {
    await stack.close()
    await redis.stop()
  }
}
