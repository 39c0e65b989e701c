import { type Address, type Hex, type PublicClient, parseAbiItem } from 'viem'
import { B20_FACTORY_ADDRESS, predictB20Address } from '../../lib/chain/b20.js'
import type { PaymentKeys } from '../../lib/payments/keys.js'
import { listOpenPayments } from '../../lib/payments/ledger/openPayments.js'
import { type PaymentRecord, readPaymentRecord } from '../../lib/payments/ledger/paymentRecord.js'
import { saltOfPayment } from '../../lib/payments/sale/purchase.js'
import type { Store } from '../../lib/store/types.js'

// The paid door's books after a run, from the chain and from the ledger side by side: which authorizations' USDC
// moved (the token's AuthorizationUsed), which tokens the factory created (B20Created, at the address a payment's salt
// predicts), and where each authorization's record ended, with the credits as `npm run agents -- credits` lists them.

/** One authorization a client signed, the Idempotency-Key it went with, and what a violation should say of it. */
export type SignedAuthorization = { payer: Address; nonce: Hex; idempotencyKey: string | null; note: string }

/** The balance of a run: counts, the rows marked "must be 0" are the ledger's promises. */
export type LedgerBalanceTable = {
  'authorizations signed': number
  'USDC moved (AuthorizationUsed on chain)': number
  'moved → deployed': number
  'moved → credit (listed by agents -- credits)': number
  'moved → neither (must be 0)': number
  'not moved → deployed (must be 0)': number
  'settled twice (must be 0)': number
  'Idempotency-Keys with two settled payments (must be 0)': number
  'deployed with exactly one token': number
  'deployed without exactly one token (must be 0)': number
  'tokens of an authorization not deployed (must be 0)': number
  'USDC to payTo other than moved × price (must be 0)': number
}

/** The table, and one line per authorization that breaks a "must be 0" row. */
export type LedgerBalance = { table: LedgerBalanceTable; violations: string[] }

/** Parameters of {@link ledgerBalance}. */
export type LedgerBalanceParameters = {
  /** A client of the chain the run paid on (no faults). */
  chain: PublicClient
  /** The shared store (no faults). */
  store: Store
  keys: PaymentKeys
  usdc: Address
  payTo: Address
  price: bigint
  /** The deploys' signer: the sender of every createB20. */
  signer: Address
  signed: readonly SignedAuthorization[]
}

const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const b20Created = parseAbiItem(
  'event B20Created(address indexed token, uint8 indexed variant, string name, string symbol, uint8 decimals, bytes variantEventParams)',
)

const idOf = (payer: string, nonce: string) => `${payer.toLowerCase()}:${nonce.toLowerCase()}`

/** Reads the chain's logs and the ledger's records and balances them (see the module's comment). */
export async function ledgerBalance(parameters: LedgerBalanceParameters): Promise<LedgerBalance> {
  const { chain, store, keys, usdc, payTo, price, signer, signed } = parameters
  const [used, received, created, open] = await Promise.all([
    chain.getLogs({ address: usdc, event: authorizationUsed, fromBlock: 0n }),
    chain.getLogs({ address: usdc, event: transfer, args: { to: payTo }, fromBlock: 0n }),
    chain.getLogs({ address: B20_FACTORY_ADDRESS, event: b20Created, fromBlock: 0n }),
    listOpenPayments(store, keys),
  ])
  const settles = new Map<string, number>()
  for (const log of used)
    settles.set(idOf(log.args.authorizer!, log.args.nonce!), (settles.get(idOf(log.args.authorizer!, log.args.nonce!)) ?? 0) + 1)
  const tokens = new Map<string, number>()
  for (const log of created) tokens.set(log.args.token!.toLowerCase(), (tokens.get(log.args.token!.toLowerCase()) ?? 0) + 1)
  // What `npm run agents -- credits` lists: the open payments paid and not deployed.
  const credits = new Set(open.filter((r) => r.state === 'credit' || r.state === 'deploying').map((r) => idOf(r.payer, r.nonce)))
  const violations: string[] = []
  const rows = {
    moved: 0,
    deployed: 0,
    credit: 0,
    neither: 0,
    unpaidDeployed: 0,
    twice: 0,
    oneToken: 0,
    notOneToken: 0,
    strayTokens: 0,
  }
  const paidPerKey = new Map<string, number>()
  for (const { payer, nonce, idempotencyKey, note } of signed) {
    const id = idOf(payer, nonce)
    const record: PaymentRecord | null = await readPaymentRecord(store, { keys, payer, nonce })
    const state = record?.state ?? 'none'
    const moved = settles.get(id) ?? 0
    const salt = saltOfPayment(payer.toLowerCase(), nonce.toLowerCase() as Hex)
    const made = (['asset', 'stablecoin'] as const)
      .map((variant) => tokens.get(predictB20Address(variant, signer, salt).toLowerCase()) ?? 0)
      .reduce((a, b) => a + b, 0)
    const say = (what: string) => violations.push(`${what}: ${id} (${note}; ${state}, settled ${moved}×, ${made} token(s))`)
    if (moved > 1) {
      rows.twice += 1
      say('settled twice')
    }
    if (moved > 0) {
      rows.moved += 1
      if (idempotencyKey !== null)
        paidPerKey.set(`${payer.toLowerCase()}:${idempotencyKey}`, (paidPerKey.get(`${payer.toLowerCase()}:${idempotencyKey}`) ?? 0) + 1)
      if (state === 'deployed') rows.deployed += 1
      else if (state === 'credit' && credits.has(id)) rows.credit += 1
      else {
        rows.neither += 1
        say('paid, neither deployed nor a listed credit')
      }
    } else if (state === 'deployed') {
      rows.unpaidDeployed += 1
      say('deployed, not paid')
    }
    if (state === 'deployed') {
      if (made === 1) rows.oneToken += 1
      else {
        rows.notOneToken += 1
        say('deployed without exactly one token')
      }
    } else if (made > 0) {
      rows.strayTokens += made
      say('a token for a payment not deployed')
    }
  }
  const keysPaidTwice = [...paidPerKey].filter(([, paid]) => paid > 1)
  for (const [key, paid] of keysPaidTwice) violations.push(`Idempotency-Key paid ${paid}×: ${key}`)
  const receivedUnits = received.reduce((sum, log) => sum + log.args.value!, 0n)
  const offBy = receivedUnits - BigInt(rows.moved) * price
  if (offBy !== 0n) violations.push(`payTo received ${receivedUnits}, ${rows.moved} payments of ${price} moved`)
  return {
    table: {
      'authorizations signed': signed.length,
      'USDC moved (AuthorizationUsed on chain)': rows.moved,
      'moved → deployed': rows.deployed,
      'moved → credit (listed by agents -- credits)': rows.credit,
      'moved → neither (must be 0)': rows.neither,
      'not moved → deployed (must be 0)': rows.unpaidDeployed,
      'settled twice (must be 0)': rows.twice,
      'Idempotency-Keys with two settled payments (must be 0)': keysPaidTwice.length,
      'deployed with exactly one token': rows.oneToken,
      'deployed without exactly one token (must be 0)': rows.notOneToken,
      'tokens of an authorization not deployed (must be 0)': rows.strayTokens,
      'USDC to payTo other than moved × price (must be 0)': Number(offBy),
    },
    violations,
  }
}
