import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { type Address, type Hex, keccak256, toHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { createChainClient } from '../../lib/chain/client.js'
import { deployStoreKeys } from '../../lib/deploy/keys.js'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import { fencesKeyOf } from '../../lib/deploy/sender/nonceFence.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { paymentKeys } from '../../lib/payments/keys.js'
import { listOpenPayments } from '../../lib/payments/ledger/openPayments.js'
import { reconcilePayments } from '../../lib/payments/ledger/reconcile.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { type DoorInstance, startDoorInstance } from './doorInstance.js'
import type { FacilitatorFault } from './facilitator.js'
import { fakeKmsClient } from './fakeKms.js'
import { type LedgerBalance, ledgerBalance, type SignedAuthorization } from './ledgerBalance.js'
import { type PaidDoorParts, TEST_PRICE_UNITS } from './paidDoorParts.js'
import { signPaymentHeader } from './payingClient.js'
import { seededRandom } from './syntheticMarket.js'
import { createTestClock } from './testClock.js'

// A run of paid deploys with faults at random points, over two door instances that share the store, the chain, KMS
// and the facilitator, as x402 clients drive them: each deploy's first request meets a fault (store or RPC calls
// failing, the facilitator answering pending, timing out or failing, or its instance killed at a random call, or while
// its settle is out, and the request resent to the other instance), and the client resends as the door tells it to (the same payment, or a new
// one under the same Idempotency-Key) until it is deployed or the client walks away. The tick does its two parts of
// the books as in production: it re-sends deploys left unmined, and reconciles the payments left open. At the end every held transfer lands, the tick decides what it can, the chain passes the
// authorizations' validBefore and the tick decides the rest; then the chain and the ledger are balanced. Time is
// passed by hand: a killed instance's leases lapse (and the fences of nonces it claimed, which lapse sooner) before
// the client's resend, and every lease at the end, followed by one more deploy, as the service's next one would.

/** The faults a deploy's first request may meet. */
export const PAID_LEDGER_FAULTS = [
  'none',
  'store',
  'rpc',
  'facilitator-pending',
  'facilitator-timeout',
  'facilitator-error',
  'kill',
  'kill-at-settle',
  'tick-race',
] as const
/** One of {@link PAID_LEDGER_FAULTS}. */
export type PaidLedgerFault = (typeof PAID_LEDGER_FAULTS)[number]

/** Parameters of {@link runPaidLedger}. */
export type RunPaidLedgerParameters = {
  parts: PaidDoorParts
  deploys: number
  seed: number
  /** Payers the deploys are spread over (default 6). */
  payers?: number
  /** Most requests a client sends for one deploy before it walks away (default 8). */
  attempts?: number
}

/** What the run did and how the books balance. */
export type RunPaidLedgerReturnType = LedgerBalance & {
  /** Deploys by the fault their first request met. */
  faults: Record<PaidLedgerFault, number>
  /** Faults that took effect: store and RPC calls failed, instances killed, facilitator faults met by a settle or verify. */
  injected: { storeCalls: number; rpcCalls: number; kills: number; facilitator: number; tickRaces: number }
  /** Answers the clients got, by code (`deployed` for a deploy, the dead instance's not counted). */
  answers: Record<string, number>
  /** Deploys whose client stopped resending before it was deployed. */
  walkedAway: number
  /** Reconciliations run. */
  ticks: number
}

const DOOR = 'https://svc.test/api/x402/deploy'
/** Answers after which the client resends its request with a new payment (this one was refused, nothing paid). */
const PAY_AGAIN = new Set([402])
/** How long a settle is waited for: a local one takes a few tens of ms, and a held one (a timeout) costs this much. */
const SETTLE_TIMEOUT_MS = 600
/** The reconciliation's clock runs this far ahead: payments left by a request are past its grace at once. */
const TICK_AHEAD_MS = 5 * 60_000

/** Runs the deploys (see the module's comment) and balances the books. */
export async function runPaidLedger({
  parts,
  deploys,
  seed,
  payers: payerCount = 6,
  attempts = 8,
}: RunPaidLedgerParameters): Promise<RunPaidLedgerReturnType> {
  const random = seededRandom(seed)
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const env = {
    X402_RATE_LIMIT_PER_MINUTE: '1000000',
    X402_DAILY_CAP: '100000',
    X402_PAYER_DAILY_CAP: '100000',
    DEPLOY_DAILY_CAP: '100000',
  }
  const storePrefix = parts.env.STORE_KEY_PREFIX!
  const keys = paymentKeys({ storePrefix, chainId: 8453 })
  const store = createUpstashStore({ url: parts.upstash.url, token: parts.env.UPSTASH_REDIS_REST_TOKEN! })
  const chain = createChainClient({ rpcUrl: parts.chain.rpcUrl, chainId: 8453, timeoutMs: 5000 })
  const instances: DoorInstance[] = [
    await startDoorInstance({ name: 'A', parts, env, random, settleTimeoutMs: SETTLE_TIMEOUT_MS }),
    await startDoorInstance({ name: 'B', parts, env, random, settleTimeoutMs: SETTLE_TIMEOUT_MS }),
  ]
  const payerKeys = Array.from({ length: payerCount }, (_, j) => keccak256(toHex(`paid-ledger:${seed}:${j}`)))
  const perPayer = BigInt(Math.ceil((deploys * 2) / payerCount) + 2) * TEST_PRICE_UNITS
  for (const key of payerKeys) await parts.usdc.mint(privateKeyToAddress(key), perPayer)

  const faults = Object.fromEntries(PAID_LEDGER_FAULTS.map((f) => [f, 0])) as Record<PaidLedgerFault, number>
  const injected = { storeCalls: 0, rpcCalls: 0, kills: 0, facilitator: 0, tickRaces: 0 }
  const answers: Record<string, number> = {}
  const signed: SignedAuthorization[] = []
  let walkedAway = 0
  let ticks = 0
  // Its waits (the nonce lock's, between the instances of the run) end in real time too: the instances run in it.
  const tickClock = createTestClock(Date.now(), { realWaits: true })
  // The tick's instance: no faults (a tick that fails is run again a minute later).
  const tickServices = createDeployServices({
    env: { ...parts.env, ...env },
    store,
    publicClient: chain,
    kms: fakeKmsClient(parts.kms.url),
    logger: silentLogger,
    clock: tickClock.clock,
    background: (work) => void work.catch(() => undefined),
  })
  /** The tick's two parts that keep the books: the unmined deploys followed (a stuck one re-sent), the payments reconciled. */
  const tick = async () => {
    tickClock.now = Date.now() + TICK_AHEAD_MS
    ticks += 1
    await followDeploys(tickServices)
    return reconcilePayments({ services: { ...tickServices, store }, keys })
  }
  const send = async (instance: DoorInstance, body: unknown, headers: Record<string, string>) => {
    const response = await instance.handle(
      new Request(DOOR, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    )
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> }
  }
  const unpaid = await send(instances[0]!, { name: 'Ask', symbol: 'ASK' }, {})
  const requirements: PaymentRequirements = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts[0]!
  const nonces = seededRandom(seed ^ 0x5eed)
  const sign = async (privateKey: Hex, idempotencyKey: string | null, note: string) => {
    const nonce = toHex(Uint8Array.from({ length: 32 }, () => Math.floor(nonces() * 256)))
    const header = await signPaymentHeader({ privateKey, requirements, authorization: { nonce } })
    signed.push({ payer: privateKeyToAddress(privateKey), nonce, idempotencyKey, note })
    return { header, nonce }
  }
  const signerKeys = deployStoreKeys({ storePrefix, chainId: 8453, signer: parts.signer })
  /**
   * The time a payment's lease takes to lapse passes (a killed instance's, or any at the end), with the ticks that run
   * meanwhile: the nonce lock lapses first (a tick then re-sends the deploys left unmined), then the fences of nonces
   * claimed and never sent, then the payments' leases (a tick then decides the payments left open). Nothing else runs.
   */
  const lapse = async (payer: Address | null) => {
    await store.delete(signerKeys.lock)
    await tick()
    const held = signed.filter((s) => payer === null || s.payer === payer)
    await Promise.all([store.delete(fencesKeyOf(signerKeys.noncePrefix)), ...held.map((s) => store.delete(keys.lease(s.payer, s.nonce)))])
    await tick()
  }
  // Calls out of one clean deploy: a kill lands at a random one of them (measured on the first deploy, which is clean).
  let span = 60

  /** One deploy, its first request meeting `fault`, its client resending until deployed or it walks away. */
  const deployOnce = async (i: number, fault: PaidLedgerFault) => {
    faults[fault] += 1
    const privateKey = pick(payerKeys)
    const payer = privateKeyToAddress(privateKey)
    const idempotencyKey = random() < 0.6 ? `ledger-${seed}-${i}` : null
    const body = { name: `Ledger ${i}`, symbol: `LDG${i}` }
    const first = Math.floor(random() * 2)
    const target = instances[first]!
    let facilitatorFault: FacilitatorFault | null = null
    if (fault === 'store') target.faults.storeFailRate = 0.25
    if (fault === 'rpc') target.faults.rpcFailRate = 0.25
    if (fault === 'kill') Object.assign(target.faults, { killAt: Math.floor(random() * span), killAfterSending: random() < 0.5 })
    // The window that matters most: the settle is out (sent to the facilitator, or about to be) when the process dies.
    if (fault === 'kill-at-settle') Object.assign(target.faults, { killAtSettle: true, killAfterSending: random() < 0.75 })
    if (fault === 'facilitator-pending') facilitatorFault = pick(['pending', 'pending-error'] as const)
    if (fault === 'facilitator-timeout') facilitatorFault = 'hold-settle'
    // Left unknown by a pending settle, then resent while a tick decides the same payment.
    if (fault === 'tick-race') facilitatorFault = 'pending'
    if (fault === 'facilitator-error')
      facilitatorFault = pick(['down', 'reset', 'refuse-settle', 'refuse-held', 'lose-settle-answer'] as const)
    const { killAt, killAtSettle, killAfterSending } = target.faults
    const killedAt =
      killAt !== null || killAtSettle ? ` at ${killAtSettle ? 'the settle' : `call ${killAt}`}${killAfterSending ? ', sent' : ''}` : ''
    const note = `deploy ${i}, ${fault}${facilitatorFault ? ` (${facilitatorFault})` : ''}${killedAt} on ${target.name}${idempotencyKey ? ', keyed' : ''}`
    let payment = await sign(privateKey, idempotencyKey, note)
    const trail: string[] = []
    parts.facilitator.setFault(facilitatorFault)
    const facilitatorCalls = parts.facilitator.calls.length
    let done = false
    let killed = false
    for (let attempt = 0; attempt < attempts && !done; attempt++) {
      const instance = attempt === 0 ? target : instances[attempt === 1 && killed ? 1 - first : Math.floor(random() * 2)]!
      const headers: Record<string, string> = { 'payment-signature': payment.header }
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
      const racing = fault === 'tick-race' && attempt === 1
      if (racing) {
        // The held transfer lands, and the tick that would credit it runs at the very time the resend deploys it.
        await parts.facilitator.landHeld()
        injected.tickRaces += 1
      }
      const [answer] = await Promise.all([send(instance, body, headers), racing ? tick() : null])
      if (attempt === 0) {
        parts.facilitator.setFault(null)
        if (facilitatorFault && parts.facilitator.calls.length > facilitatorCalls) injected.facilitator += 1
        if (i === 0 && fault === 'none') span = instance.calls
      }
      if (instance.killed) {
        // The process is gone: the client saw its connection drop. A new process takes its place; its leases lapse
        // before the client's resend reaches the other instance.
        injected.kills += 1
        trail.push(`${instance.name} killed`)
        killed = true
        instance.reset()
        await lapse(payer)
        continue
      }
      instance.faults.storeFailRate = 0
      instance.faults.rpcFailRate = 0
      Object.assign(instance.faults, { killAt: null, killAtSettle: false })
      const code = answer.body.ok === true ? 'deployed' : String(answer.body.code ?? answer.status)
      answers[code] = (answers[code] ?? 0) + 1
      trail.push(`${instance.name} ${code}`)
      // A broadcast the RPC did not acknowledge is final too: the client polls its receipt.
      if (answer.body.ok === true || code === 'BROADCAST_UNCERTAIN') done = true
      else if (PAY_AGAIN.has(answer.status)) payment = await sign(privateKey, idempotencyKey, note)
      else if (code === 'PAYMENT_UNKNOWN') {
        if (fault !== 'tick-race' && random() < 0.15) break
        if (fault !== 'tick-race' && random() < 0.7) await parts.facilitator.landHeld()
      } else if (idempotencyKey && random() < 0.3) payment = await sign(privateKey, idempotencyKey, note)
    }
    if (!done) walkedAway += 1
    for (const s of signed) if (s.note.startsWith(`deploy ${i},`)) s.note += `; ${trail.join(' → ')}`
    // The tick runs every minute, whatever is still in a mempool.
    if (!done || i % 5 === 4) await tick()
  }
  // The first deploys meet each fault once, in order, so that a short run has them all; then at random.
  for (let i = 0; i < deploys; i++) await deployOnce(i, i < PAID_LEDGER_FAULTS.length ? PAID_LEDGER_FAULTS[i]! : pick(PAID_LEDGER_FAULTS))
  injected.storeCalls = instances.reduce((n, s) => n + s.failed.store, 0)
  injected.rpcCalls = instances.reduce((n, s) => n + s.failed.rpc, 0)

  // The end: a tick while transfers are still in a mempool, then they land, every lease lapses (a lease a store
  // failure kept from being let go) and the tick decides; what is left undecided is decided once the chain passed
  // validBefore.
  await tick()
  await lapse(null)
  // The service's next deploy: a nonce claimed and never sent (its fence lapsed) is taken again, so the deploys sent
  // after it, held behind the gap, are mined.
  await deployOnce(deploys, 'none')
  await parts.facilitator.landHeld()
  const undecided = async () => (await listOpenPayments(store, keys)).filter((r) => r.state === 'settling' || r.state === 'unknown').length
  const settle = async () => {
    for (let round = 0; round < 100 && (await undecided()) > 0; round++) if ((await tick()).decided === 0) return
  }
  await settle()
  if ((await undecided()) > 0) {
    await parts.chain.testClient.increaseTime({ seconds: 3600 })
    await parts.chain.testClient.mine({ blocks: 1 })
    await settle()
  }
  await Promise.all(instances.map((instance) => instance.close()))
  const balance = await ledgerBalance({
    chain,
    store,
    keys,
    usdc: parts.usdc.address,
    payTo: parts.payTo,
    price: TEST_PRICE_UNITS,
    signer: parts.signer,
    signed,
  })
  return { ...balance, faults, injected, answers, walkedAway, ticks }
}
