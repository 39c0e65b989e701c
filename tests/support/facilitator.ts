import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseSignature,
  publicActions,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'

// A local x402 facilitator: a real HTTP server built from @x402/core's x402Facilitator and @x402/evm's exact scheme,
// settling from an anvil account over the test chain's RPC. The service talks to it exactly as to a hosted one
// (X402_FACILITATOR_URL); tests count what it was asked and make it fail on cue.

const transferWithAuthorizationAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])

/** anvil's ninth default account: funded with ETH at start, used by nothing else in the tests. */
const FACILITATOR_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'

/**
 * Ways the facilitator fails on cue: `down` answers 503 to everything, `reset` drops every connection, `slow`
 * answers only after `slowMs`, `refuse-settle` answers every settle `success: false` without sending anything (a
 * reason a settle gives before any broadcast: its simulation failed), `refuse-held` signs the transfer and holds it
 * (as `hold-settle`) yet answers a refusal naming no transaction (as @x402/evm's facilitator does when its send throws),
 * `lose-settle-answer` settles and then drops the connection instead of answering. The pending ones sign the
 * transfer and hold it, unsent, until {@link LocalFacilitator.landHeld} (a transaction waiting in a mempool):
 * `pending` answers 200 `settlement_pending` with its hash, `pending-error` the same in an HTTP 500 body,
 * `hold-settle` never answers (the client times out).
 */
export type FacilitatorFault =
  | 'down'
  | 'reset'
  | 'slow'
  | 'refuse-settle'
  | 'refuse-held'
  | 'lose-settle-answer'
  | 'pending'
  | 'pending-error'
  | 'hold-settle'

/** The running facilitator. */
export type LocalFacilitator = {
  url: string
  /** The account that pays gas for settlements. */
  address: Address
  /** Calls received, in order: `verify`, `settle`, `supported`. */
  calls: string[]
  /** The transactions its settles sent. */
  settlements: Hex[]
  /** Authorization headers the calls came with (a hosted facilitator's credentials), in order. */
  authorizations: (string | null)[]
  setFault(fault: FacilitatorFault | null, slowMs?: number): void
  /**
   * Runs `action` when the next call of `operation` arrives, before it is answered (a test's cue); the call waits for
   * what `action` answers, when that is a promise.
   */
  onNext(operation: 'verify' | 'settle', action: () => unknown): void
  /** The transfers signed and held by the pending faults, by hash. */
  held: Hex[]
  /** Sends the held transfers, in order (each waits for its receipt); answers their hashes. */
  landHeld(): Promise<Hex[]>
  close(): Promise<void>
}

/** Parameters of {@link startLocalFacilitator}. */
export type StartLocalFacilitatorParameters = { rpcUrl: string; network?: `eip155:${number}` }

/** Starts the facilitator on a free loopback port. */
export async function startLocalFacilitator({
  rpcUrl,
  network = 'eip155:8453',
}: StartLocalFacilitatorParameters): Promise<LocalFacilitator> {
  const account = privateKeyToAccount(FACILITATOR_KEY)
  const wallet = createWalletClient({ account, chain: base, transport: http(rpcUrl) }).extend(publicActions)
  const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address } as never, { confirmationTimeoutMs: 20_000 })
  const facilitator = new x402Facilitator()
  registerExactEvmScheme(facilitator, { signer, networks: [network] })
  const calls: string[] = []
  const settlements: Hex[] = []
  const authorizations: (string | null)[] = []
  let fault: FacilitatorFault | null = null
  let slowMs = 0
  // One settle at a time: concurrent settles from one wallet would collide on its nonce.
  let settling: Promise<unknown> = Promise.resolve()
  const cues = new Map<string, () => unknown>()
  // Held transfers by authorization (a retry of the same pending settle names the same one), in signing order.
  const held = new Map<string, { hash: Hex; serialized: Hex }>()
  const hang: ServerResponse[] = []
  let nextNonce: number | null = null

  /** Signs the payment's transferWithAuthorization from the facilitator's account without sending it. */
  const signHeld = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const { authorization, signature } = payload.payload as {
      authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }
      signature: Hex
    }
    const known = held.get(authorization.nonce)
    if (known) return known
    const { r, s, v, yParity } = parseSignature(signature)
    const data = encodeFunctionData({
      abi: transferWithAuthorizationAbi,
      functionName: 'transferWithAuthorization',
      args: [
        authorization.from,
        authorization.to,
        BigInt(authorization.value),
        BigInt(authorization.validAfter),
        BigInt(authorization.validBefore),
        authorization.nonce,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    })
    // Nonces after the held ones: a settle sent meanwhile must not take the held transfer's place.
    nextNonce ??= await wallet.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const request = await wallet.prepareTransactionRequest({
      to: requirements.asset as Address,
      data,
      nonce: nextNonce,
      gas: 200_000n,
    })
    const serialized = await wallet.signTransaction(request as never)
    nextNonce += 1
    const transfer = { hash: keccak256(serialized), serialized }
    held.set(authorization.nonce, transfer)
    return transfer
  }

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body, (_, value) => (typeof value === 'bigint' ? value.toString() : value)))
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const operation = (req.url ?? '').split('?')[0]!.split('/').at(-1) ?? ''
    calls.push(operation)
    authorizations.push(req.headers.authorization ?? null)
    const cue = cues.get(operation)
    cues.delete(operation)
    await cue?.()
    if (fault === 'reset') return void req.socket.destroy()
    if (fault === 'down') return answer(res, 503, { error: 'facilitator down' })
    if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, slowMs))
    if (operation === 'supported' && req.method === 'GET') return answer(res, 200, facilitator.getSupported())
    if (req.method !== 'POST' || (operation !== 'verify' && operation !== 'settle')) return answer(res, 404, { error: 'not found' })
    const { paymentPayload, paymentRequirements } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      paymentPayload: PaymentPayload
      paymentRequirements: PaymentRequirements
    }
    if (operation === 'verify') return answer(res, 200, await facilitator.verify(paymentPayload, paymentRequirements))
    if (fault === 'pending' || fault === 'pending-error' || fault === 'hold-settle') {
      const { hash } = await signHeld(paymentPayload, paymentRequirements)
      if (fault === 'hold-settle') return void hang.push(res)
      const body = { success: false, errorReason: 'settlement_pending', transaction: hash, network: paymentRequirements.network }
      return answer(res, fault === 'pending' ? 200 : 500, body)
    }
    if (fault === 'refuse-settle')
      return answer(res, 200, {
        success: false,
        errorReason: 'invalid_exact_evm_transaction_simulation_failed',
        transaction: '',
        network: paymentRequirements.network,
      })
    if (fault === 'refuse-held') {
      await signHeld(paymentPayload, paymentRequirements)
      return answer(res, 200, {
        success: false,
        errorReason: 'invalid_exact_evm_transaction_failed',
        transaction: '',
        network: paymentRequirements.network,
      })
    }
    // Past held transfers, the facilitator's own settle would reuse their nonces: they are sent first.
    if (held.size > 0 && nextNonce !== null) await landAll()
    const settled = settling.then(() => facilitator.settle(paymentPayload, paymentRequirements))
    settling = settled.catch(() => undefined)
    const result = await settled
    if (result.success && result.transaction) settlements.push(result.transaction as Hex)
    if (fault === 'lose-settle-answer') return void req.socket.destroy()
    return answer(res, 200, result)
  }
  const landed = new Set<Hex>()
  async function landAll(): Promise<Hex[]> {
    const sent: Hex[] = []
    for (const { hash, serialized } of held.values()) {
      if (landed.has(hash)) continue
      landed.add(hash)
      await wallet.sendRawTransaction({ serializedTransaction: serialized })
      const receipt = await wallet.waitForTransactionReceipt({ hash })
      if (receipt.status === 'success') settlements.push(hash)
      sent.push(hash)
    }
    nextNonce = null
    return sent
  }
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, 500, { error: error instanceof Error ? error.message : String(error) })
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    address: account.address,
    calls,
    settlements,
    authorizations,
    setFault: (value, ms = 0) => {
      fault = value
      slowMs = ms
    },
    onNext: (operation, action) => void cues.set(operation, action),
    get held() {
      return [...held.values()].map((transfer) => transfer.hash)
    },
    landHeld: landAll,
    close: () =>
      new Promise<void>((ok) => {
        for (const res of hang.splice(0)) res.destroy()
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
