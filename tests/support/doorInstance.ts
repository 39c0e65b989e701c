import { createChainClient } from '../../lib/chain/client.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { createPaymentFacilitator } from '../../lib/payments/facilitator/httpFacilitator.js'
import { paymentsSourceFrom } from '../../lib/payments/instance.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { fakeKmsClient } from './fakeKms.js'
import { type FaultProxy, type ProxyVerdict, startFaultProxy } from './faultProxy.js'
import type { PaidDoorParts } from './paidDoorParts.js'

// One instance of the paid door, in process, whose every call out (the store's REST front, the RPC, KMS, the
// facilitator) goes through its own fault proxies: a test fails some of its store or RPC calls, or kills it at its
// k-th call. A killed instance does nothing more: every call after the k-th is cut off, and answers still on their
// way to it are dropped, so whatever its code still runs (a catch path, a best-effort write) reaches nothing.

/** The parts an instance talks to, each through its own proxy. */
export type InstancePart = 'store' | 'rpc' | 'kms' | 'facilitator'

/** What an instance's calls out meet now. */
export type InstanceFaults = {
  /** Odds that one store call fails (refused, or done with its answer lost). */
  storeFailRate: number
  /** Odds that one RPC call fails (refused, or done with its answer lost). */
  rpcFailRate: number
  /** Kills the instance at this call (counted from the last {@link DoorInstance.reset}); null: never. */
  killAt: number | null
  /** Kills the instance at its first settle instead (the facilitator's `/settle`). */
  killAtSettle: boolean
  /** Whether the call it dies at reaches its part before (its answer lost) or not. */
  killAfterSending: boolean
}

/** A paid door instance over fault proxies. */
export type DoorInstance = {
  name: string
  /** The door as Vercel runs it: a request in, its answer out. */
  handle(request: Request): Promise<Response>
  faults: InstanceFaults
  /** Calls out since the last reset. */
  calls: number
  /** Store and RPC calls the faults failed, since the instance started. */
  failed: Record<'store' | 'rpc', number>
  killed: boolean
  /** A new process in the same place: fresh services and door, no faults, its calls counted from zero. */
  reset(): void
  close(): Promise<void>
}

/** Parameters of {@link startDoorInstance}. */
export type StartDoorInstanceParameters = {
  name: string
  parts: PaidDoorParts
  /** More environment (caps, limits). */
  env?: Record<string, string>
  /** Draws in [0, 1): which store and RPC calls fail (a seeded generator makes a run repeatable). */
  random: () => number
  /** How long the facilitator client waits for a settle (the service's is 15 s). */
  settleTimeoutMs?: number
}

const calm = (): InstanceFaults => ({ storeFailRate: 0, rpcFailRate: 0, killAt: null, killAtSettle: false, killAfterSending: false })

/** Starts the instance's proxies and builds its services and door over them. */
export async function startDoorInstance({
  name,
  parts,
  env = {},
  random,
  settleTimeoutMs = 1500,
}: StartDoorInstanceParameters): Promise<DoorInstance> {
  const verdictOf = (part: InstancePart, path: string): ProxyVerdict => {
    const index = instance.calls++
    if (instance.killed) return 'cut'
    const { faults } = instance
    const settle = part === 'facilitator' && path.endsWith('/settle')
    if ((faults.killAt !== null && index >= faults.killAt) || (faults.killAtSettle && settle)) {
      instance.killed = true
      return faults.killAfterSending ? 'lose-answer' : 'cut'
    }
    const rate = part === 'store' ? faults.storeFailRate : part === 'rpc' ? faults.rpcFailRate : 0
    if (rate === 0 || random() >= rate) return 'pass'
    instance.failed[part as 'store' | 'rpc'] += 1
    return random() < 0.5 ? 'refuse' : 'lose-answer'
  }
  const targets: Record<InstancePart, string> = {
    store: parts.upstash.url,
    rpc: parts.chain.rpcUrl,
    kms: parts.kms.url,
    facilitator: parts.facilitator.url,
  }
  const proxies = Object.fromEntries(
    await Promise.all(
      (Object.keys(targets) as InstancePart[]).map(
        async (part) =>
          [
            part,
            await startFaultProxy({ target: targets[part], verdict: (path) => verdictOf(part, path), deliver: () => !instance.killed }),
          ] as const,
      ),
    ),
  ) as Record<InstancePart, FaultProxy>
  const instanceEnv = {
    ...parts.env,
    ...env,
    UPSTASH_REDIS_REST_URL: proxies.store.url,
    BASE_RPC_URL: proxies.rpc.url,
    AWS_ENDPOINT_URL_KMS: proxies.kms.url,
    X402_FACILITATOR_URL: proxies.facilitator.url,
  }
  const build = () => {
    const services: DeployServices = createDeployServices({
      env: instanceEnv,
      store: createUpstashStore({ url: proxies.store.url, token: parts.env.UPSTASH_REDIS_REST_TOKEN! }),
      publicClient: createChainClient({ rpcUrl: proxies.rpc.url, chainId: 8453, timeoutMs: 3000 }),
      kms: fakeKmsClient(proxies.kms.url),
      logger: silentLogger,
      background: (work) => void work.catch(() => undefined),
    })
    const facilitator = createPaymentFacilitator({ url: proxies.facilitator.url, cdp: null, now: Date.now, settleTimeoutMs })
    const door = createPaidDeployEndpoint(paymentsSourceFrom({ deploy: deployServicesFrom(() => services), env: instanceEnv, facilitator }))
    return (request: Request) => Promise.resolve(door.fetch(request))
  }
  const instance: DoorInstance = {
    name,
    handle: build(),
    faults: calm(),
    calls: 0,
    failed: { store: 0, rpc: 0 },
    killed: false,
    reset() {
      Object.assign(instance, { handle: build(), faults: calm(), calls: 0, killed: false })
    },
    close: async () => {
      await Promise.all(Object.values(proxies).map((proxy) => proxy.close()))
    },
  }
  return instance
}
