import { startDeployStack } from '../tests/support/deployStack.js'
import { startRedisServer } from '../tests/support/redisServer.js'

const DEPLOYS = 30
const AGENTS = 10
const EACH = 5

/**
 * Gas of a plain deploy against one born with everything at its longest (supply, cap, 500 characters of description,
 * 512-character image and website URLs): what each used, and the limit each was signed with (estimate + 25 %). On the
 * emulator, not Base's precompile: the ratio is the figure to read, the absolute gas is the emulator's.
 */
async function gasOfBirth(stack: Awaited<ReturnType<typeof startDeployStack>>): Promise<Record<string, number | string>> {
  const longUrl = (path: string) => `https://example.com/${path}/${'a'.repeat(512 - 21 - path.length)}`
  const kinds = {
    plain: { action: 'agent_deploy', name: 'Gas Plain', symbol: 'GASP' },
    typical: {
      action: 'agent_deploy',
      name: 'Gas Typical',
      symbol: 'GAST',
      admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      initialSupply: '1000000',
      supplyCap: '10000000',
      description: 'The points token of the Example community.',
      image: 'https://example.com/token.png',
      website: 'https://example.com',
    },
    'born ready': {
      action: 'agent_deploy',
      name: 'Gas Born Ready',
      symbol: 'GASB',
      admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      initialSupply: '1000000',
      supplyCap: '10000000',
      description: 'd'.repeat(500),
      image: longUrl('image'),
      website: longUrl('site'),
    },
  }
  const used: Record<string, { used: bigint; limit: bigint }> = {}
  for (const [kind, body] of Object.entries(kinds)) {
    const { body: sent } = await stack.post(body)
    if (!sent.ok) throw new Error(`${kind} deploy failed: ${sent.code}`)
    const receipt = await stack.chain.publicClient.waitForTransactionReceipt({ hash: sent.txHash })
    if (receipt.status !== 'success') throw new Error(`${kind} deploy reverted`)
    const tx = await stack.chain.publicClient.getTransaction({ hash: sent.txHash })
    used[kind] = { used: receipt.gasUsed, limit: tx.gas }
  }
  const { plain, typical, 'born ready': ready } = used as Record<keyof typeof kinds, { used: bigint; limit: bigint }>
  const ratio = (a: bigint, b: bigint) => Math.round((Number(a) / Number(b)) * 100) / 100
  return {
    'gas used: plain deploy (emulator)': Number(plain.used),
    'gas used: supply, cap and short metadata (emulator)': Number(typical.used),
    'gas used: every field at its longest (emulator)': Number(ready.used),
    'gas: short metadata / plain': ratio(typical.used, plain.used),
    'gas: longest / plain': ratio(ready.used, plain.used),
    'gas limit signed: plain / short / longest': `${plain.limit} / ${typical.limit} / ${ready.limit}`,
  }
}

/** The deploy benchmark: RPC and KMS requests per deploy, latency, sequential deploys per second. */
export async function benchDeploy(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const stack = await startDeployStack({ storeKind: 'upstash', redisSocket: redis.socket, env: { DEPLOY_DAILY_CAP: '100000' } })
  try {
    // One warm-up deploy: the chain-id check and GetPublicKey happen once per process.
    await stack.post({ action: 'agent_deploy', name: 'Warm Up', symbol: 'WARM' })
    const gas = await gasOfBirth(stack)

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
      ...gas,
    }
  } finally {
    await stack.close()
    await redis.stop()
  }
}
