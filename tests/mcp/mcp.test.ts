import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest'
import { EXECUTE_BATCH_SELECTOR } from '../../lib/chain/batchAccount.js'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'
import { deployUniswapV4 } from '../support/uniswapV4.js'

const agent = generateAgentKey()
const other = generateAgentKey()
/** An agent of its own for the pooled launch, so the other cases' deploy lists stay theirs. */
const pooler = generateAgentKey()
type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text?: string }[] }

describe('the MCP server at /api/mcp, with the SDK’s own client, against npm start on the local chain', () => {
  let parts: ServiceParts
  let service: NpmStart
  let gecko: FakeGeckoTerminal
  const clients: Client[] = []

  /** A connected SDK client; `headers` go on every HTTP request, as an MCP client configured with a key sends them. */
  async function connect(headers: Record<string, string> = {}, url = service.url): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { requestInit: { headers } }))
    clients.push(client)
    return client
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result
  const signs = () => parts.kms.calls.filter((c) => c === 'Sign').length

  beforeAll(async () => {
    parts = await startServiceParts({
      redisSocket: inject('redisSocket'),
      allowlist: [agent.digest, other.digest, pooler.digest],
      storePrefix: `mcp${process.pid}:`,
      env: { DEPLOY_DAILY_CAP: '20' },
    })
    // Candles from a GeckoTerminal-shaped server over the same market as the DexScreener-shaped one.
    gecko = await startFakeGeckoTerminal(createSyntheticMarket())
    // Uniswap v4's own contracts on the chain, where deploy_token's pool is made.
    const v4 = await deployUniswapV4(parts.chain)
    service = await startNpmStart({
      ...parts.env,
      GECKOTERMINAL_BASE_URL: gecko.url,
      UNISWAP_V4_POOL_MANAGER: v4.poolManager,
      UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
      UNISWAP_V4_STATE_VIEW: v4.stateView,
      PERMIT2_ADDRESS: v4.permit2,
    })
  }, 120_000)
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
    await service?.stop()
    await parts?.close()
    await gecko?.close()
  })

  it('lists the fifteen tools with annotations and input schemas built from the HTTP API’s zod schemas, and no paid tool while the paid door is off', async () => {
    const client = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'base-control-room' })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'get_control_room',
      'search_tokens',
      'get_token_ohlcv',
      'list_launches',
      'deploy_token',
      'get_deploy_receipt',
      'list_deploys',
      'list_events',
      'redeliver_event',
      'token_status',
      'collect_fees',
      'update_metadata',
      'mint',
      'transfer_admin',
      'renounce',
    ])
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(byName.get_control_room!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    expect(byName.deploy_token!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })
    const deploy = byName.deploy_token!.inputSchema as unknown as {
      properties: Record<string, any>
      required: string[]
      additionalProperties: boolean
    }
    expect(Object.keys(deploy.properties).sort()).toEqual([
      'admin',
      'currency',
      'decimals',
      'description',
      'dryRun',
      'fixedSupply',
      'idempotencyKey',
      'image',
      'initialSupply',
      'name',
      'pool',
      'recipient',
      'salt',
      'supplyCap',
      'symbol',
      'variant',
      'waitSeconds',
      'website',
    ])
    expect(deploy.required.sort()).toEqual(['name', 'symbol'])
    expect(deploy.properties.waitSeconds).toMatchObject({ minimum: 0, maximum: 6 })
    expect(deploy.properties.symbol.pattern).toBe('^[A-Za-z0-9]{1,11}$')
    expect(deploy.properties.initialSupply).toMatchObject({ type: 'string', examples: ['1000000'] })
    expect(deploy.properties.fixedSupply).toMatchObject({ type: 'boolean', description: expect.stringContaining('no admin') })
    expect(deploy.additionalProperties).toBe(false)
    expect((byName.get_deploy_receipt!.inputSchema as { properties: Record<string, any> }).properties.waitSeconds).toMatchObject({
      minimum: 0,
      maximum: 25,
    })
    expect((byName.list_deploys!.inputSchema as { properties: Record<string, any> }).properties.limit).toMatchObject({
      minimum: 1,
      maximum: 100,
    })
    expect((byName.redeliver_event!.inputSchema as { required: string[] }).required).toEqual(['eventId'])
    // The paid door is off here (no X402_PRICE): its tool is neither listed, named nor served.
    expect(client.getInstructions()).not.toContain('deploy_token_paid')
    expect(await call(client, 'deploy_token_paid', { name: 'Off', symbol: 'OFF' })).toMatchObject({
      isError: true,
      structuredContent: { ok: false, code: 'UNKNOWN_TOOL' },
    })
  })

  it('reads the control room and searches without a key: the same JSON as the HTTP API, and a short text', async () => {
    const client = await connect()
    const room = await call(client, 'get_control_room', { limit: 5 })
    expect(room.isError).toBeUndefined()
    const http = (await (await fetch(`${service.url}/api/control-room`)).json()) as Record<string, any>
    expect(room.structuredContent).toEqual({ ...http, liveActivity: http.liveActivity.slice(0, 5) })
    expect(room.structuredContent!.trending).toHaveLength(15)
    expect(room.content[0]!.text).toMatch(/^5 of the top Base tokens/)
    expect((await call(client, 'get_control_room')).structuredContent!.liveActivity).toHaveLength(20)

    const search = await call(client, 'search_tokens', { query: 'aero' })
    expect(search.structuredContent).toEqual(await (await fetch(`${service.url}/api/token-search?q=aero`)).json())
    expect(search.structuredContent!.tokens.length).toBeGreaterThan(0)
    expect(search.content[0]!.text).toBe(`${search.structuredContent!.tokens.length} Base pairs match.`)
  })

  it('gives a token’s candles and the launches without a key: the same JSON as the HTTP API', async () => {
    const client = await connect()
    const room = (await (await fetch(`${service.url}/api/control-room`)).json()) as { liveActivity: { address: string }[] }
    const address = room.liveActivity[2]!.address
    const candles = await call(client, 'get_token_ohlcv', { address, timeframe: 'minute', aggregate: 15, limit: 24 })
    expect(candles.isError).toBeUndefined()
    expect(candles.structuredContent).toEqual(
      await (await fetch(`${service.url}/api/token-ohlcv?address=${address}&timeframe=minute&aggregate=15&limit=24`)).json(),
    )
    expect(candles.structuredContent!.ohlcv.length).toBeGreaterThan(0)
    expect(candles.content[0]!.text).toMatch(/^\d+ minute candles \(x15\) of 0x/)
    // A rule only the endpoint knows (aggregate per timeframe) comes back as its 400, named.
    expect(await call(client, 'get_token_ohlcv', { address, timeframe: 'day', aggregate: 4 })).toMatchObject({
      isError: true,
      structuredContent: { ok: false, code: 'INVALID_PARAMETER', field: 'aggregate' },
    })
    const launches = await call(client, 'list_launches', { limit: 3 })
    expect(launches.isError).toBeUndefined()
    expect(launches.structuredContent).toEqual(await (await fetch(`${service.url}/api/launches?limit=3`)).json())
    expect(await call(client, 'list_launches', { cursor: 'forged' })).toMatchObject({
      isError: true,
      structuredContent: { code: 'INVALID_PARAMETER', field: 'cursor' },
    })
  })

  it('refuses bad read arguments as tool results with the API’s codes, never protocol errors', async () => {
    const client = await connect()
    expect(await call(client, 'get_control_room', { limit: 0 })).toMatchObject({
      isError: true,
      structuredContent: { ok: false, code: 'INVALID_ARGUMENTS', details: [{ field: 'limit' }] },
    })
    expect(await call(client, 'search_tokens', { query: 'x'.repeat(65) })).toMatchObject({
      isError: true,
      structuredContent: { code: 'INVALID_ARGUMENTS', details: [{ field: 'query' }] },
    })
    // Each reason says what the value must be, as the HTTP endpoint's 400 does.
    expect(await call(client, 'get_token_ohlcv', { address: '0x12', aggregate: 7 })).toMatchObject({
      isError: true,
      structuredContent: {
        code: 'INVALID_ARGUMENTS',
        details: [
          { field: 'address', reason: 'must be 0x and 40 hex digits' },
          { field: 'aggregate', reason: 'must be 1, 5 or 15 for minute, 1, 4 or 12 for hour, 1 for day' },
        ],
      },
    })
    expect(await call(client, 'no_such_tool')).toMatchObject({ isError: true, structuredContent: { code: 'UNKNOWN_TOOL' } })
  })

  it('refuses every agent tool without a key or with a bad one, before the signer', async () => {
    const before = signs()
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-key' },
      { 'x-service-key': 'not-a-key' },
      { authorization: `Basic ${agent.key}` },
    ]
    for (const headers of attempts) {
      const client = await connect(headers)
      for (const [name, args] of [
        ['deploy_token', { name: 'Nope', symbol: 'NOPE' }],
        ['get_deploy_receipt', { txHash: `0x${'ab'.repeat(32)}` }],
        ['list_deploys', {}],
      ] as const) {
        expect(await call(client, name, args)).toMatchObject({ isError: true, structuredContent: { ok: false, code: 'FORBIDDEN' } })
      }
    }
    expect(signs()).toBe(before)
  })

  it('dry-runs, deploys, waits for the receipt, and lists the deploy: key as Authorization: Bearer', async () => {
    const client = await connect({ authorization: `Bearer ${agent.key}` })
    // Born ready over MCP too: the same fields as agent_deploy.
    const birth = { admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', initialSupply: '42.5', description: 'Born over MCP.' }
    const dry = await call(client, 'deploy_token', { name: 'Mcp Token', symbol: 'MCP', ...birth, dryRun: true })
    expect(dry).toMatchObject({
      structuredContent: {
        ok: true,
        status: 'simulated',
        token: { initialSupply: '42.5', recipient: birth.admin, metadata: { description: birth.description } },
      },
    })
    expect(dry.isError).toBeUndefined()

    const sent = await call(client, 'deploy_token', { name: 'Mcp Token', symbol: 'MCP', ...birth, idempotencyKey: 'mcp-first-deploy' })
    expect(sent.structuredContent).toMatchObject({ ok: true, status: 'broadcast', token: { name: 'Mcp Token', symbol: 'MCP' } })
    expect(sent.content[0]!.text).toContain(sent.structuredContent!.txHash)
    // The idempotency key works as the header does: the same call answers the same deploy.
    expect(
      (await call(client, 'deploy_token', { name: 'Mcp Token', symbol: 'MCP', ...birth, idempotencyKey: 'mcp-first-deploy' }))
        .structuredContent!.txHash,
    ).toBe(sent.structuredContent!.txHash)

    const receipt = await call(client, 'get_deploy_receipt', { txHash: sent.structuredContent!.txHash, waitSeconds: 10 })
    expect(receipt.structuredContent).toMatchObject({
      ok: true,
      status: 'confirmed',
      tokenAddress: sent.structuredContent!.predictedAddress,
      minted: [{ to: birth.admin, amount: '42.5', units: '42500000000000000000' }],
    })

    const listed = await call(client, 'list_deploys', { limit: 5 })
    expect(listed.structuredContent).toEqual({
      ok: true,
      deploys: [expect.objectContaining({ txHash: sent.structuredContent!.txHash, symbol: 'MCP', status: 'confirmed' })],
    })
    // Another agent sees none of it (key as X-Service-Key this time).
    const others = await connect({ 'x-service-key': other.key })
    expect((await call(others, 'list_deploys')).structuredContent).toEqual({ ok: true, deploys: [] })
  })

  it('launches with a Uniswap v4 pool through deploy_token: the answer and the text say the pool, seeded in the same call', async () => {
    const client = await connect({ authorization: `Bearer ${pooler.key}` })
    const owner = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const delegated = (await parts.chain.publicClient.getCode({ address: parts.signer })) !== undefined
    const nonce = await parts.chain.publicClient.getTransactionCount({ address: parts.signer })
    const launched = await call(client, 'deploy_token', {
      name: 'Mcp Pool',
      symbol: 'MPOOL',
      admin: owner,
      initialSupply: '1000000',
      pool: { amount: '500000', startingMarketCapEth: '5', fee: 3000 },
      waitSeconds: 6,
    })
    expect(launched.structuredContent).toMatchObject({
      ok: true,
      status: 'broadcast',
      pool: { fee: 3000, tickSpacing: 60, owner, status: 'sent' },
      receipt: { status: 'confirmed', pool: { status: 'seeded', owner } },
    })
    expect(launched.content[0]!.text).toContain(launched.structuredContent!.pool.poolId)
    // One transaction: the signer's executeBatch to itself (plus, once, the authorization that set its delegation).
    const tx = await parts.chain.publicClient.getTransaction({ hash: launched.structuredContent!.txHash })
    expect({ from: tx.from, to: tx.to }).toEqual({ from: parts.signer.toLowerCase(), to: parts.signer.toLowerCase() })
    expect(tx.input.startsWith(EXECUTE_BATCH_SELECTOR)).toBe(true)
    expect(await parts.chain.publicClient.getTransactionCount({ address: parts.signer })).toBe(nonce + (delegated ? 1 : 2))
  })

  it('answers an invalid intent with every problem and the cap with its code, signing nothing', async () => {
    // A service of its own with a cap of 1 (its own store prefix, so its own count), on the same chain and KMS.
    const capped1 = await startNpmStart({ ...parts.env, DEPLOY_DAILY_CAP: '1', STORE_KEY_PREFIX: `mcpcap${process.pid}:` })
    onTestFinished(() => capped1.stop())
    const client = await connect({ 'x-service-key': agent.key }, capped1.url)
    const before = signs()
    const invalid = await call(client, 'deploy_token', { name: ' padded', symbol: 'B@D', decimals: 40, colour: 'red' })
    expect(invalid).toMatchObject({ isError: true, structuredContent: { ok: false, code: 'INVALID_INTENT' } })
    expect(invalid.structuredContent!.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'colour',
      'decimals',
      'name',
      'symbol',
    ])
    expect(await call(client, 'get_deploy_receipt', { txHash: '0x12', waitSeconds: 99 })).toMatchObject({
      isError: true,
      structuredContent: { code: 'INVALID_INTENT', details: [{ field: 'txHash' }, { field: 'waitSeconds' }] },
    })
    expect(signs()).toBe(before)

    // DEPLOY_DAILY_CAP is 1 here: this deploy takes the slot, the next is refused.
    expect((await call(client, 'deploy_token', { name: 'Second', symbol: 'TWO' })).structuredContent).toMatchObject({
      ok: true,
      status: 'broadcast',
    })
    const capped = await call(client, 'deploy_token', { name: 'Third', symbol: 'THREE' })
    expect(capped).toMatchObject({
      isError: true,
      structuredContent: { ok: false, code: 'DEPLOY_CAP_REACHED', retryAfterSeconds: expect.any(Number) },
    })
    expect(signs()).toBe(before + 1)
  })

  it('refuses deploy_token of a variant the network switched off as VARIANT_NOT_ACTIVE, a dry run too, signing nothing', async () => {
    // A service of its own: another one keeps what it read of the ActivationRegistry for a few minutes.
    const fresh = await startNpmStart(parts.env)
    onTestFinished(() => fresh.stop())
    const client = await connect({ 'x-service-key': agent.key }, fresh.url)
    const before = signs()
    await parts.chain.setVariantActivated('stablecoin', false)
    onTestFinished(() => parts.chain.setVariantActivated('stablecoin', true))
    for (const dryRun of [true, false]) {
      const refused = await call(client, 'deploy_token', { name: 'Off Dollar', symbol: 'OFF', variant: 'stablecoin', dryRun })
      expect(refused).toMatchObject({ isError: true, structuredContent: { ok: false, code: 'VARIANT_NOT_ACTIVE' } })
    }
    expect(signs()).toBe(before)
  })

  it('answers GET with 405 (stateless: no server stream) and a CORS preflight for browser clients of an allowed origin', async () => {
    const get = await fetch(`${service.url}/api/mcp`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST, OPTIONS')
    // npm start allows loopback origins (a local web client); see tests/mcp/origin.test.ts for the refused ones.
    const preflight = await fetch(`${service.url}/api/mcp`, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/)
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/)
  })

  const rpc = (body: string) =>
    fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    })

  it('refuses a JSON-RPC batch whole (MCP 2025-06-18 dropped batching), before any tool runs', async () => {
    const before = service.lines.filter((l) => l.includes('token_search')).length
    const batch = JSON.stringify(
      Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'search_tokens', arguments: { query: `batch${i}` } },
      })),
    )
    const response = await rpc(batch)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/Batches/) },
    })
    expect(service.lines.filter((l) => l.includes('token_search')).length).toBe(before)
    // One message still works.
    const one = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))
    expect(one.status).toBe(200)
  })

  it('answers a lone surrogate in search_tokens as invalid arguments, with no error line', async () => {
    const errorsBefore = service.lines.filter((l) => l.includes('"level":"error"')).length
    const response = await rpc(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_tokens","arguments":{"query":"a\\ud800b"}}}',
    )
    expect(response.status).toBe(200)
    const body = (await response.json()) as { result: Result }
    expect(body.result.isError).toBe(true)
    expect(body.result.structuredContent).toMatchObject({
      ok: false,
      details: [{ field: 'query', reason: expect.stringMatching(/surrogate/) }],
    })
    expect(service.lines.filter((l) => l.includes('"level":"error"')).length).toBe(errorsBefore)
  })
})
