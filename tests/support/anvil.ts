import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Address, createPublicClient, createTestClient, type Hex, http } from 'viem'
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { placeTokenCode, tokenCreatedBy } from './tokenPlacement.js'

const emulator = JSON.parse(readFileSync(fileURLToPath(new URL('./contracts/emulator.json', import.meta.url)), 'utf8')) as {
  B20FactoryEmulator: Hex
  B20TokenEmulator: Hex
  ActivationRegistryStub: Hex
  Multicall3Emulator: Hex
}

/** Multicall3's address on every chain: x402's facilitator diagnoses a failed payment simulation through it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11'

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
  /** Makes the proxy refuse every request (as an RPC outage) until set back. */
  setRpcDown(down: boolean): void
  /** Makes the proxy misbehave until set back to null: `hang` never answers, `reset` drops the connection. */
  setRpcFault(fault: 'hang' | 'reset' | null): void
  /** Forwards the next call of `method` to the node but drops the answer (the connection dies), as a flaky RPC does. */
  dropNextAnswer(method: string): void
  /** Answers the next call of `method` with a JSON-RPC error after `delayMs`, without forwarding it (a node refusing). */
  refuseNext(method: string, message: string, delayMs?: number): void
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
    ['--chain-id', String(parameters.chainId ?? 8453), '--port', String(port), '--host', '127.0.0.1', '--silent'],
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
  return {
    rpcUrl: proxy.url,
    nodeUrl,
    rpcMethods: proxy.methods,
    testClient,
    publicClient,
    fund: (address, wei = 10n ** 20n) => testClient.setBalance({ address, value: wei }),
    setRpcDown: proxy.setDown,
    refuseNext: proxy.refuseNext,
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
          return void res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: { code: -32000, message: refusal.message } }))
        }
      }
    } catch {
      // forwarded as is; the node answers the parse error
    }
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    if (dropAnswer) {
      await upstream.text()
      return void req.socket.destroy()
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' })
    res.end(await upstream.text())
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
    setFault: (value: 'hang' | 'reset' | null) => {
      fault = value
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
