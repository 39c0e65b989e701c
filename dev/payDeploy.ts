// `npm run pay -- <door URL> '<agent_deploy JSON>' [--asset <token> --max <base units>]`: a deploy paid with x402, as an
// agent pays it: @x402/fetch's wrapFetchWithPayment over a viem local account whose key is X402_PAYER_KEY. It answers
// the door's 402 by itself (one signature, no gas), then prints the door's answer and the settlement it carried.
// By default the client pays only in assets it knows (Base's USDC) and at most $1; `--asset` and `--max` are the
// spendControls another token (the sandbox's test USDC) or a higher price needs.
import { parseArgs } from 'node:util'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'

const USAGE = `usage: X402_PAYER_KEY=0x… npm run pay -- <door URL> '<agent_deploy JSON>' [--asset <token address> --max <base units>]`

const fail = (message: string): never => {
  console.error(`pay: ${message}`)
  process.exit(1)
}

const { values, positionals } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { asset: { type: 'string' }, max: { type: 'string' } } })
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`)
  }
})()
const [url, body] = positionals
const key = process.env.X402_PAYER_KEY
if (!url || !body) fail(USAGE)
if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) fail(`X402_PAYER_KEY must be the payer's private key (0x and 64 hex digits)\n${USAGE}`)
if (values.asset !== undefined && !/^\d+$/.test(values.max ?? '')) fail(`--asset needs --max, the most to pay in its base units\n${USAGE}`)

const account = privateKeyToAccount(key as `0x${string}`)
const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account)))
if (values.asset)
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:*', asset: values.asset, maxAmountPerPayment: values.max! }] })
const payingFetch = wrapFetchWithPayment(fetch, client)

const response = await payingFetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body! }).catch(
  (error: unknown) => fail(`the payment could not be made: ${(error as Error).message}`),
)
const answer = (await response.json()) as Record<string, unknown>
const settlement = response.headers.get('payment-response')
console.log(JSON.stringify({ status: response.status, payer: account.address, answer }))
if (settlement) console.log(`settled: ${JSON.stringify(decodePaymentResponseHeader(settlement))}`)
process.exit(response.ok && answer.ok === true ? 0 : 1)
