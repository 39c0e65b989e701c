import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Address, createPublicClient, createTestClient, encodeFunctionData, type Hex, http, keccak256, parseTransaction } from 'viem'
import { B20_FEATURES } from '../../lib/chain/activation.js'
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, type B20Variant } from '../../lib/chain/b20.js'
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '../../lib/chain/delegate.js'
import { placeTokenCode, tokenCreatedBy } from './tokenPlacement.js'

const emulator = JSON.parse(readFileSync(fileURLToPath(new URL('./contracts/emulator.json', import.meta.url)), 'utf8')) as {
  B20FactoryEmulator: Hex
  B20TokenEmulator: Hex
  ActivationRegistryStub: Hex
  Multicall3Emulator: Hex
}

/**
 * Simple7702Account v0.8's runtime code from the npm package's compiled artifact (@account-abstraction/contracts
 * 0.8.0): placed at the address Base has it at, as the signer's EIP-7702 delegate.
 */
export const simple7702AccountCode = (): Hex =>
  (createRequire(import.meta.url)('@account-abstraction/contracts/artifacts/Simple7702Account.json') as { deployedBytecode: Hex })
    .deployedBytecode

/** Multicall3's address on every chain: x402's facilitator diagnoses a failed payment simulation through it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** How the proxy answers `eth_sendRawTransactionSync` ({@link AnvilChain.setSyncMode}). */
export type SyncMode = 'missing' | 'timeout' | 'hold'

/** ABI of the ActivationRegistry stub's test-only switch. */
export const activationStubAbi = [
  {
    type: 'function',
    name: 'setActivated',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'feature', type: 'bytes32' },
      { name: 'active', type: 'bool' },
    ],
    outputs: [],
  },
] as const

/**
 * A running anvil node at chain id 8453 with the B20 factory emulator, the ActivationRegistry stub and Multicall3 in place, behind a
 * JSON-RPC proxy that places the token emulator at the address each createB20 will create (`tokenPlacement.ts`).
 */
export type AnvilChain = {
  /** The proxy: what the service and the tests send createB20 through. */
  rpcUrl: string
  /** anvil itself, behind no proxy: for parts that are not under test (the local x402 facilitator). */
  nodeUrl: string
  /** JSON-RPC methods received through {@link rpcUrl}'s counting proxy, in order. */
  rpcMethods: string[]
  testClient: ReturnType<typeof createTestClient>
  publicClient: ReturnType<typeof createPublicClient>
  /** Gives `address` native currency to pay gas. */
  fund(address: Address, wei?: bigint): Promise<void>
  /**
   * Switches a B20 variant on or off in the ActivationRegistry stub (as Base's activation admin can), mined before it
   * returns. Every variant is on at start; a test that switches one off switches it back.
   */
  setVariantActivated(variant: B20Variant, active: boolean): Promise<void>
  /** Makes the proxy refuse every request (as an RPC outage) until set back. */
  setRpcDown(down: boolean): void
  /** Makes the proxy misbehave until set back to null: `hang` never answers, `reset` drops the connection. */
  setRpcFault(fault: 'hang' | 'reset' | null): void
  /** Forwards the next call of `method` to the node but drops the answer (the connection dies), as a flaky RPC does. */
  dropNextAnswer(method: string): void
  /** Answers the next call of `method` with a JSON-RPC error after `delayMs`, without forwarding it (a node refusing). */
  refuseNext(method: string, message: string, delayMs?: number): void
  /**
   * Refuses every raw transaction (sync or not) at `nonce` with `message`, without forwarding it; null stops. With
   * `hold`, a sync send's refusal waits for {@link AnvilChain.releaseHeld}, as a node's answer that comes late.
   */
  refuseNonce(nonce: number, message: string | null, options?: { hold?: boolean }): void
  /**
   * How `eth_sendRawTransactionSync` is answered until set back to null (anvil's own answer otherwise): `missing` as a
   * node without the method (-32601); `timeout` sends the transaction, then answers EIP-7966's error 4 with its hash;
   * `hold` forwards it and holds the node's answer until {@link AnvilChain.releaseHeld}.
   */
  setSyncMode(mode: SyncMode | null): void
  /** Lets the answers held by the `hold` sync mode go. */
  releaseHeld(): void
  stop(): Promise<void>
}

function anvilBinary(): string {
  const require = createRequire(import.meta.url)
  try {
    const manifest = require.resolve('@foundry-rs/anvil-linux-amd64/package.json')
    const binary = join(dirname(manifest), 'bin', 'anvil')
    if (existsSync(binary)) return binary
  } catch {
    // fall through
  }
  throw new Error('anvil binary not found: install the dev dependency @foundry-rs/anvil-linux-amd64 (npm ci)')
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Starts anvil (`--chain-id 8453`) with a JSON-RPC counting proxy in front, and installs the emulators. */
export async function startAnvilChain(parameters: { chainId?: number } = {}): Promise<AnvilChain> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    anvilBinary(),
    // Prague: EIP-7702 as Base runs it since Isthmus (anvil 1.7.1 defaults to it; named so a newer default cannot drift).
    ['--chain-id', String(parameters.chainId ?? 8453), '--hardfork', 'prague', '--port', String(port), '--host', '127.0.0.1', '--silent'],
    { stdio: 'ignore' },
  )
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()))
  const nodeUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      const r = await fetch(nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      })
      if (r.ok) break
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('anvil did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
  const proxy = await startRpcProxy(nodeUrl)
  const testClient = createTestClient({ mode: 'anvil', transport: http(nodeUrl) })
  const publicClient = createPublicClient({ transport: http(nodeUrl) })
  await testClient.setCode({ address: B20_FACTORY_ADDRESS, bytecode: emulator.B20FactoryEmulator })
  await testClient.setCode({ address: ACTIVATION_REGISTRY_ADDRESS, bytecode: emulator.ActivationRegistryStub })
  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: emulator.Multicall3Emulator })
  await testClient.setCode({ address: SIMPLE_7702_ACCOUNT_ADDRESS, bytecode: simple7702AccountCode() })
  return {
    rpcUrl: proxy.url,
    nodeUrl,
    rpcMethods: proxy.methods,
    testClient,
    publicClient,
    fund: (address, wei = 10n ** 20n) => testClient.setBalance({ address, value: wei }),
    setVariantActivated: async (variant, active) => {
      // Sent from an unlocked anvil account straight to the node: the chain's own state, not a request under test.
      const [from] = (await testClient.request({ method: 'eth_accounts' } as never)) as Address[]
      const data = encodeFunctionData({ abi: activationStubAbi, functionName: 'setActivated', args: [B20_FEATURES[variant], active] })
      const hash = (await testClient.request({
        method: 'eth_sendTransaction',
        params: [{ from, to: ACTIVATION_REGISTRY_ADDRESS, data }],
      } as never)) as Hex
      const receipt = await publicClient.waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`setActivated reverted: ${hash}`)
    },
    setRpcDown: proxy.setDown,
    refuseNext: proxy.refuseNext,
    refuseNonce: proxy.refuseNonce,
    setSyncMode: proxy.setSyncMode,
    releaseHeld: proxy.releaseHeld,
    setRpcFault: proxy.setFault,
    dropNextAnswer: proxy.dropNextAnswer,
    stop: async () => {
      await proxy.close()
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * A pass-through JSON-RPC proxy that records each method (batches included), places a B20 token's code before the
 * createB20 that creates it reaches the node, and can play an outage.
 */
async function startRpcProxy(target: string) {
  const { createServer: createHttpServer } = await import('node:http')
  const methods: string[] = []
  let down = false
  let fault: 'hang' | 'reset' | null = null
  const drop = new Set<string>()
  const refuse = new Map<string, { message: string; delayMs: number }>()
  const refusedNonces = new Map<number, { message: string; hold: boolean }>()
  let syncMode: SyncMode | null = null
  let held = Promise.withResolvers<void>()
  const forward = (body: string) => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const rpcError = (id: unknown, code: number, message: string, data?: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } })

  /** The proxy's own answer to a single raw-transaction call, or null to forward it as it is. */
  const rawTransactionAnswer = async (call: { method: string; id?: unknown; params?: unknown }): Promise<string | null> => {
    if (call.method !== 'eth_sendRawTransaction' && call.method !== 'eth_sendRawTransactionSync') return null
    const raw = (call.params as Hex[] | undefined)?.[0]
    if (!raw) return null
    const refusal = refusedNonces.get(parseTransaction(raw).nonce ?? -1)
    if (refusal) {
      if (refusal.hold && call.method === 'eth_sendRawTransactionSync') await held.promise
      return rpcError(call.id, -32000, refusal.message)
    }
    if (call.method !== 'eth_sendRawTransactionSync' || syncMode === null || syncMode === 'hold') return null
    if (syncMode === 'missing') return rpcError(call.id, -32601, 'the method eth_sendRawTransactionSync does not exist/is not available')
    // timeout: the node takes the transaction; the answer is EIP-7966's "not included in time", with the hash.
    const sent = (await (await forward(JSON.stringify({ ...call, method: 'eth_sendRawTransaction', params: [raw] }))).json()) as {
      result?: Hex
      error?: unknown
    }
    if (sent.error) return JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: sent.error })
    return rpcError(call.id, 4, 'The transaction was added to the mempool but was not included in time.', sent.result ?? keccak256(raw))
  }

  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    if (down) {
      res.writeHead(503, { 'content-type': 'text/plain' })
      return void res.end('rpc down')
    }
    if (fault === 'hang') return // accepted, never answered
    if (fault === 'reset') return void req.socket.destroy()
    let dropAnswer = false
    let hold = false
    try {
      const parsed = JSON.parse(body) as { method: string; id?: unknown } | { method: string; id?: unknown }[]
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        methods.push(call.method)
        const token = await tokenCreatedBy(call)
        if (token) await placeTokenCode({ nodeUrl: target, token, code: emulator.B20TokenEmulator })
        if (drop.delete(call.method)) dropAnswer = true
        const refusal = !Array.isArray(parsed) ? refuse.get(call.method) : undefined
        if (refusal) {
          refuse.delete(call.method)
          await new Promise((r) => setTimeout(r, refusal.delayMs))
          res.writeHead(200, { 'content-type': 'application/json' })
          return void res.end(rpcError(call.id, -32000, refusal.message))
        }
        const own = Array.isArray(parsed) ? null : await rawTransactionAnswer(call)
        if (own) {
          res.writeHead(200, { 'content-type': 'application/json' })
          return void res.end(own)
        }
        if (call.method === 'eth_sendRawTransactionSync' && syncMode === 'hold') hold = true
      }
    } catch {
      // forwarded as is; the node answers the parse error
    }
    const waitFor = hold ? held.promise : null
    const upstream = await forward(body)
    if (dropAnswer) {
      await upstream.text()
      return void req.socket.destroy()
    }
    const text = await upstream.text()
    if (waitFor) await waitFor
    res.writeHead(upstream.status, { 'content-type': 'application/json' })
    res.end(text)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    setDown: (value: boolean) => {
      down = value
    },
    dropNextAnswer: (method: string) => void drop.add(method),
    refuseNext: (method: string, message: string, delayMs = 0) => void refuse.set(method, { message, delayMs }),
    refuseNonce: (nonce: number, message: string | null, { hold = false }: { hold?: boolean } = {}) => {
      if (message === null) refusedNonces.delete(nonce)
      else refusedNonces.set(nonce, { message, hold })
    },
    setSyncMode: (mode: SyncMode | null) => {
      syncMode = mode
    },
    releaseHeld: () => {
      held.resolve()
      held = Promise.withResolvers<void>()
    },
    setFault: (value: 'hang' | 'reset' | null) => {
      fault = value
    },
    close: () =>
      new Promise<void>((ok) => {
        held.resolve()
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
