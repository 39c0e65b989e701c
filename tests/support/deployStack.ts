import { KMSClient } from '@aws-sdk/client-kms'
import type { Address } from 'viem'
import { createChainClient } from '../../lib/chain/client.js'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { announceConfirmedLaunch } from '../../lib/launches/feed.js'
import { createLogger } from '../../lib/platform/log.js'
import { readWethUsd } from '../../lib/read/roomWethPrice.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import type { Store } from '../../lib/store/types.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { type AnvilChain, startAnvilChain } from './anvil.js'
import { type FakeKms, startFakeKms } from './fakeKms.js'
import { withOpenApiCheck } from './openapiCheck.js'
import { createTestClock, type TestClock } from './testClock.js'
import { startUpstashRestServer, type UpstashRestServer } from './upstashRestServer.js'

/** The AWS secret the stacks' KMS client signs its requests with: no answer or log line may ever contain it. */
export const AWS_TEST_SECRET = 'test-aws-secret-access-key-0b20f'

/** Agent keys the stacks allowlist (by digest). */
export const AGENT_KEYS = { alice: 'test-agent-key-alice-0123456789', bob: 'test-agent-key-bob-0123456789' } as const

/** The deploy endpoint over real local parts: anvil + B20 emulator, the fake KMS, and Redis or the in-process store. */
export type DeployStack = {
  chain: AnvilChain
  kms: FakeKms
  upstash: UpstashRestServer | null
  store: Store
  signer: Address
  /** Log lines written by the service. */
  logs: string[]
  clock: TestClock
  /** A service instance (its own KMS account cache, chain-id check and handler) over the shared parts. */
  newInstance(options?: NewInstanceOptions): { services: DeployServices; handle: (request: Request) => Promise<Response> }
  handle: (request: Request) => Promise<Response>
  /** POSTs a JSON body as an agent. */
  post(
    body: unknown,
    options?: { key?: string | null; idempotencyKey?: string; instance?: (request: Request) => Promise<Response> },
  ): Promise<{ status: number; body: Record<string, any>; headers: Headers }>
  /** Waits for the work the instances run after their answers (webhook deliveries), as `waitUntil` would keep alive. */
  drain(): Promise<void>
  close(): Promise<void>
}

/** What one instance of a stack differs in: its environment over the stack's, its lock wait, its view of the store. */
export type NewInstanceOptions = {
  env?: Record<string, string>
  lockWaitMs?: number
  /** The store as this instance sees it (a wrapper that fails on cue); default the stack's. */
  store?: Store
}

/** Parameters of {@link startDeployStack}. */
export type StartDeployStackParameters = {
  storeKind: 'memory' | 'upstash'
  redisSocket?: string
  env?: Record<string, string>
  lockWaitMs?: number
  receiptPollMs?: number
  /**
   * How long the deploy side's chain client waits for an answer (then once more): 10 s by default, since a first call
   * to a fresh anvil on a loaded two-core machine took over 3 s twice; a case about a node that never answers sets less.
   */
  rpcTimeoutMs?: number
}

let stackCounter = 0

/** Starts a deploy stack and funds the KMS key's address. */
export async function startDeployStack(parameters: StartDeployStackParameters): Promise<DeployStack> {
  const chain = await startAnvilChain()
  const kms = await startFakeKms()
  const upstash = parameters.storeKind === 'upstash' ? await startUpstashRestServer({ redisSocket: parameters.redisSocket! }) : null
  const store = upstash ? createUpstashStore({ url: upstash.url, token: upstash.token }) : createMemoryStore()
  const logs: string[] = []
  // The services' one clock: stamps moved by hand, waits (the nonce lock's polls between instances, a waiting send)
  // in real time too, since the instances and anvil run in it.
  const clock = createTestClock(Date.now(), { realWaits: true })
  const background = new Set<Promise<unknown>>()
  // Test files share a worker, and the whole run one redis-server: the process id, this module's counter and a random
  // part keep one stack's keys from every other's.
  const prefix = `deploytest${process.pid}-${++stackCounter}-${Math.random().toString(36).slice(2, 8)}:`
  const baseEnv: Record<string, string> = {
    DEPLOY_ALLOWLIST: `${digestAgentKey(AGENT_KEYS.alice)},${digestAgentKey(AGENT_KEYS.bob)}`,
    KMS_KEY_ID: kms.keyId,
    AWS_REGION: 'us-east-1',
    BASE_RPC_URL: chain.rpcUrl,
    STORE_KEY_PREFIX: prefix,
    ...parameters.env,
  }
  const newInstance = ({ env = {}, lockWaitMs = parameters.lockWaitMs, store: seen = store }: NewInstanceOptions = {}) => {
    const merged = { ...baseEnv, ...env }
    const services = createDeployServices({
      env: merged,
      store: seen,
      publicClient: createChainClient({ rpcUrl: merged.BASE_RPC_URL!, chainId: 8453, timeoutMs: parameters.rpcTimeoutMs ?? 10_000 }),
      kms: new KMSClient({
        region: 'us-east-1',
        endpoint: kms.url,
        credentials: { accessKeyId: 'AKIATESTSTACK0001', secretAccessKey: AWS_TEST_SECRET },
        maxAttempts: 1,
      }),
      logger: createLogger({ write: (line) => logs.push(line), env: merged }),
      clock: clock.clock,
      lockWaitMs,
      receiptPollMs: parameters.receiptPollMs,
      // As this instance's deploy side is wired (lib/launches/instance.ts): a confirmed deploy is announced as a launch.
      onConfirmed: announceConfirmedLaunch,
      // And WETH's price is the control room's in the shared store, as the read side keeps it.
      wethUsd: () => readWethUsd({ store: seen, keyPrefix: prefix }),
      background: (work) => {
        const tracked = work.finally(() => background.delete(tracked))
        background.add(tracked)
      },
    })
    return { services, handle: withOpenApiCheck('/api/b20-skill', createB20SkillEndpoint(deployServicesFrom(() => services))) }
  }
  const main = newInstance()
  const signer = (await main.services.getSigner!()).address
  await chain.fund(signer)

  const post: DeployStack['post'] = async (body, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    const key = options.key === undefined ? AGENT_KEYS.alice : options.key
    if (key !== null) headers['x-service-key'] = key
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey
    const response = await (options.instance ?? main.handle)(
      new Request('https://svc.test/api/b20-skill', {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    )
    return { status: response.status, body: (await response.json()) as Record<string, any>, headers: response.headers }
  }

  return {
    chain,
    kms,
    upstash,
    store,
    signer,
    logs,
    clock,
    newInstance,
    handle: main.handle,
    post,
    drain: async () => {
      while (background.size > 0) await Promise.allSettled([...background])
    },
    close: async () => {
      await chain.stop()
      await kms.close()
      await upstash?.close()
    },
  }
}
