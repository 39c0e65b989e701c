// `npm run sandbox`: the whole service on this machine alone. Local DexScreener- and GeckoTerminal-shaped upstreams with a synthetic
// Base market, anvil (chain 8453) with the B20 factory emulator, a KMS-compatible signer, the in-process store, and
// the real api/ handlers configured only through the environment, exactly as on Vercel. The paid door is on too: a
// test USDC on the chain, a local x402 facilitator, and a payer wallet funded with it. Ctrl-C stops everything.
import { randomBytes } from 'node:crypto'
import { getAddress } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { generateAgentKey } from '../lib/deploy/agents/agentKeys.js'
import { startAnvilChain } from '../tests/support/anvil.js'
import { startLocalFacilitator } from '../tests/support/facilitator.js'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startFakeGeckoTerminal } from '../tests/support/fakeGeckoTerminal.js'
import { startFakeKms } from '../tests/support/fakeKms.js'
import { seedHistory, syntheticHistory } from '../tests/support/syntheticHistory.js'
import { createSyntheticMarket } from '../tests/support/syntheticMarket.js'
import { placeTestUsdc } from '../tests/support/testUsdc.js'
import { deployUniswapV4 } from '../tests/support/uniswapV4.js'
import { defaultPublicUrl, loadApiEndpoints, startServer, vercelRouting } from './server.js'

/** The sandbox's test USDC: another token than Base's USDC, so the printed payment shows the spendControls it needs. */
const SANDBOX_USD = { address: '0x5A4d000000000000000000000000000000005a4D', name: 'Sandbox USD', version: '1' } as const
/** The sandbox's price per deploy: above $1, so the printed payment shows the cap a client must raise too. */
const SANDBOX_PRICE = '2.00'

const market = createSyntheticMarket({ tokens: 220 })
const upstream = await startFakeDexScreener(market)
const gecko = await startFakeGeckoTerminal(market)
const chain = await startAnvilChain()
const kmsKey = randomBytes(32)
const kms = await startFakeKms({ secretKey: kmsKey })
const agent = generateAgentKey()
const [usdc, facilitator, v4] = await Promise.all([
  placeTestUsdc({ chain, ...SANDBOX_USD }),
  startLocalFacilitator({ rpcUrl: chain.nodeUrl }),
  deployUniswapV4(chain),
])
const payerKey = generatePrivateKey()
await usdc.mint(privateKeyToAddress(payerKey), 100_000_000n)

Object.assign(process.env, {
  DEXSCREENER_BASE_URL: upstream.url,
  GECKOTERMINAL_BASE_URL: gecko.url,
  BASE_RPC_URL: chain.rpcUrl,
  KMS_KEY_ID: kms.keyArn,
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL_KMS: kms.url,
  AWS_ACCESS_KEY_ID: 'sandbox',
  AWS_SECRET_ACCESS_KEY: 'sandbox',
  DEPLOY_ALLOWLIST: agent.digest,
  // The paid door: payments go to the signer (its address named, so the 402 needs no KMS call).
  SIGNER_ADDRESS: privateKeyToAddress(`0x${kmsKey.toString('hex')}`),
  X402_PRICE: SANDBOX_PRICE,
  X402_FACILITATOR_URL: facilitator.url,
  X402_ASSET: SANDBOX_USD.address,
  X402_ASSET_NAME: SANDBOX_USD.name,
  X402_ASSET_VERSION: SANDBOX_USD.version,
  // Uniswap v4's own contracts on the sandbox chain, where a pooled launch makes its pool (Base's addresses otherwise).
  UNISWAP_V4_POOL_MANAGER: v4.poolManager,
  UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
  UNISWAP_V4_STATE_VIEW: v4.stateView,
  PERMIT2_ADDRESS: v4.permit2,
})
for (const name of [
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'KV_REST_API_URL',
  'KV_REST_API_TOKEN',
  'CHAIN_ID',
  'VERCEL',
  'X402_PAY_TO',
  'CDP_API_KEY_ID',
  'CDP_API_KEY_SECRET',
])
  delete process.env[name]

const { instanceDeploySource } = await import('../lib/launches/instance.js')
const signer = await (await instanceDeploySource.services()).getSigner!()
await chain.fund(signer.address)
// The printed deploy makes one of anvil's unlocked accounts the token's admin and holder, so a user can act as it.
const holder = getAddress(((await chain.testClient.request({ method: 'eth_accounts' } as never)) as string[])[1]!)
const bornReady = {
  action: 'agent_deploy',
  name: 'Sandbox Token',
  symbol: 'SAND',
  admin: holder,
  initialSupply: '1000000',
  supplyCap: '10000000',
  description: 'A token born ready in the sandbox.',
  website: 'https://example.com',
  // Trades from birth: 600,000 of the supply in a Uniswap v4 pool at a 10 ETH market cap, the position the holder's.
  pool: { amount: '600000', startingMarketCapEth: '10' },
}

const server = await startServer({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  endpoints: await loadApiEndpoints(),
  ...(await vercelRouting()),
})
const base = server.url
defaultPublicUrl(base)
// The history charts need a day of snapshots; a fresh sandbox backfills 24 h of synthetic ones behind the first real one.
const { instanceReadSource } = await import('../lib/read/instance.js')
const room = (await (await fetch(`${base}/api/control-room`)).json()) as { liveActivity: import('../lib/market/types.js').Token[] }
const reads = instanceReadSource()
await seedHistory(reads.store, reads.keyPrefix, syntheticHistory({ tokens: room.liveActivity, now: reads.now() }))
const { startInProcessTicker } = await import('../lib/tick/ticker.js')
const ticker = await startInProcessTicker()
// Ctrl-C is handled before the sandbox says it is ready: a user (or a script) may press it at once.
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  ticker.stop()
  await server.close()
  await Promise.allSettled([chain.stop(), kms.close(), upstream.close(), gecko.close(), facilitator.close()])
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())

console.log(`sandbox ready at ${base}`)
console.log(`  dashboard      ${base}/`)
console.log(`  control room   ${base}/api/control-room`)
console.log(`  token search   ${base}/api/token-search?q=aero`)
console.log(`  deploy         ${base}/api/b20-skill   (POST, X-Service-Key)`)
console.log(`  paid deploy    ${base}/api/x402/deploy   (POST, no key: ${SANDBOX_PRICE} ${SANDBOX_USD.name} a deploy, paid with x402)`)
console.log(`  MCP            ${base}/api/mcp   (Streamable HTTP; Authorization: Bearer <agent key> for the deploy tools)`)
console.log(`  OpenAPI        ${base}/openapi.json   agent skill ${base}/skill.md`)
console.log(
  `  upstream ${upstream.url}   GeckoTerminal ${gecko.url}   chain ${chain.rpcUrl} (8453)   KMS ${kms.url}   store: in-process memory`,
)
console.log(`  x402 facilitator ${facilitator.url}   test USDC ${usdc.address} ("${SANDBOX_USD.name}", version ${SANDBOX_USD.version})`)
console.log(
  `  signer ${signer.address} (funded)   history: 24 h of synthetic snapshots backfilled   ${ticker.intervalSeconds > 0 ? `tick every ${ticker.intervalSeconds} s` : 'tick off'}`,
)
console.log(`agent key: ${agent.key}`)
console.log(
  `try (a token born with supply, metadata and a Uniswap v4 pool, PositionManager ${v4.positionManager}; its admin, holder and position owner ${holder} is unlocked on the chain):`,
)
console.log(
  `  curl -s -X POST ${base}/api/b20-skill -H 'X-Service-Key: ${agent.key}' -H 'Content-Type: application/json' -d '${JSON.stringify(bornReady)}'`,
)
console.log(
  `  curl -s -X POST ${base}/api/b20-skill -H 'X-Service-Key: ${agent.key}' -H 'Content-Type: application/json' -d '{"action":"receipt","tx_hash":"<txHash>"}'`,
)
// Two tokens already launched, to run afterwards: one the service's signer administers for the agent (an executed
// mint), one the holder administers (a prepared mint, calls for the holder's own wallet, no key).
const launchFor = async (body: Record<string, unknown>) => {
  const headers = { 'content-type': 'application/json', 'x-service-key': agent.key }
  const answer = (await (await fetch(`${base}/api/b20-skill`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as {
    predictedAddress: string
  }
  return answer.predictedAddress
}
const runToken = await launchFor({
  action: 'agent_deploy',
  name: 'Run Token',
  symbol: 'RUN',
  initialSupply: '1000',
  recipient: holder,
  waitSeconds: 6,
})
const ownedToken = await launchFor({
  action: 'agent_deploy',
  name: 'Owned Token',
  symbol: 'OWN',
  admin: holder,
  initialSupply: '1000',
  waitSeconds: 6,
})
console.log(`run a launched token: executed by the service for the agent that launched it (${runToken}, its signer the admin):`)
console.log(
  `  curl -s -X POST ${base}/api/b20-skill -H 'X-Service-Key: ${agent.key}' -H 'Content-Type: application/json' -d '${JSON.stringify({ action: 'mint', token: runToken, to: holder, amount: '100', waitSeconds: 6 })}'`,
)
console.log(`or prepared for the admin's own wallet, no key (${ownedToken}, admin ${holder}):`)
console.log(
  `  curl -s -X POST ${base}/api/b20-skill -H 'Content-Type: application/json' -d '${JSON.stringify({ action: 'mint', token: ownedToken, to: holder, amount: '100' })}'`,
)
const paidBody = { name: 'Paid Sandbox Token', symbol: 'PAID', admin: holder, initialSupply: '1000', waitSeconds: 5 }
console.log(
  `payer wallet ${privateKeyToAddress(payerKey)}: 100 ${SANDBOX_USD.name}; pay for a deploy with it (no key; the answer carries the token's address):`,
)
const spend = `--asset ${usdc.address} --max ${Number(SANDBOX_PRICE) * 1_000_000}`
console.log(`  X402_PAYER_KEY=${payerKey} npm run pay -- ${base}/api/x402/deploy '${JSON.stringify(paidBody)}' ${spend}`)
// The same sale as an MCP tool, by x402's MCP transport: the steps an agent's own MCP client takes, then the command.
const mcpBody = { name: 'Mcp Sandbox Token', symbol: 'MCPPAID', admin: holder, initialSupply: '1000', waitSeconds: 5 }
console.log('or over MCP, tool deploy_token_paid (no key; x402 over MCP), from the same wallet:')
console.log(
  `  1. tools/call deploy_token_paid ${JSON.stringify(mcpBody)} at ${base}/api/mcp: an isError result, x402's PaymentRequired in structuredContent`,
)
console.log(
  `  2. sign it: new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account))).createPaymentPayload(paymentRequired) (${SANDBOX_USD.name} at ${SANDBOX_PRICE} needs setSpendControls: --asset and --max below)`,
)
console.log(
  '  3. the same tools/call with params._meta {"x402/payment": <that PaymentPayload>}: txHash and predictedAddress, the settlement in _meta["x402/payment-response"]',
)
console.log(`  X402_PAYER_KEY=${payerKey} npm run pay -- ${base}/api/mcp '${JSON.stringify(mcpBody)}' --mcp ${spend}`)
console.log('Ctrl-C stops everything.')
