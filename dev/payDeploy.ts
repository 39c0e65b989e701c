// `npm run pay -- <door URL> '<agent_deploy JSON>' [--asset <token> --max <base units>]`: a deploy paid with x402, as an
// agent pays it: @x402/fetch's wrapFetchWithPayment over a viem local account whose key is X402_PAYER_KEY. It answers
// the door's 402 by itself (one signature, no gas), then prints the door's answer and the settlement it carried.
// By default the client pays only in assets it knows (Base's USDC) and at most $1; `--asset` and `--max` are the
// spendControls another token (the sandbox's test USDC) or a higher price needs.
// With `--mcp` the URL is the MCP server (`/api/mcp`) and the JSON the `deploy_token_paid` tool's arguments, paid by
// x402's MCP transport: the call without payment answers an isError result holding the PaymentRequired, the client
// signs it, and the same call again carries the PaymentPayload in `_meta["x402/payment"]`; the settlement comes back
// in the result's `_meta["x402/payment-response"]`.
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'

const USAGE = `usage: X402_PAYER_KEY=0x… npm run pay -- <door URL> '<agent_deploy JSON>' [--asset <token address> --max <base units>]
       X402_PAYER_KEY=0x… npm run pay -- <MCP URL> '<deploy_token_paid arguments JSON>' --mcp [--asset … --max …]`

const fail = (message: string): never => {
  console.error(`pay: ${message}`)
  process.exit(1)
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { asset: { type: 'string' }, max: { type: 'string' }, mcp: { type: 'boolean' } },
    })
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

/** A tool result as the MCP SDK's client hands it back. */
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> }

/** `deploy_token_paid` called, its PaymentRequired signed, and called again with the payment: the last result. */
async function payOverMcp(server: string, args: Record<string, unknown>): Promise<ToolResult> {
  const mcp = new Client({ name: 'npm-run-pay', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(server)))
  try {
    const call = async (meta?: Record<string, unknown>) =>
      (await mcp.callTool({ name: 'deploy_token_paid', arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult
    const asked = await call()
    // Anything but a PaymentRequired (a refused body, the door off) is the answer as it is: nothing to pay.
    if (!asked.isError || asked.structuredContent?.x402Version === undefined) return asked
    const payment = await client.createPaymentPayload(asked.structuredContent as unknown as PaymentRequired)
    return await call({ 'x402/payment': payment })
  } finally {
    await mcp.close().catch(() => undefined)
  }
}

if (values.mcp) {
  const args = (() => {
    try {
      return JSON.parse(body!) as Record<string, unknown>
    } catch {
      return fail(`the tool's arguments must be a JSON object\n${USAGE}`)
    }
  })()
  const result = await payOverMcp(url!, args).catch((error: unknown) => fail(`the payment could not be made: ${(error as Error).message}`))
  const answer = result.structuredContent ?? {}
  console.log(JSON.stringify({ tool: 'deploy_token_paid', isError: result.isError === true, payer: account.address, answer }))
  const settlement = result._meta?.['x402/payment-response']
  if (settlement) console.log(`settled: ${JSON.stringify(settlement)}`)
  process.exit(result.isError !== true && answer.ok === true ? 0 : 1)
}

const payingFetch = wrapFetchWithPayment(fetch, client)
const response = await payingFetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body! }).catch(
  (error: unknown) => fail(`the payment could not be made: ${(error as Error).message}`),
)
const answer = (await response.json()) as Record<string, unknown>
const settlement = response.headers.get('payment-response')
console.log(JSON.stringify({ status: response.status, payer: account.address, answer }))
if (settlement) console.log(`settled: ${JSON.stringify(decodePaymentResponseHeader(settlement))}`)
process.exit(response.ok && answer.ok === true ? 0 : 1)
