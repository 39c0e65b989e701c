import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getRequestListener } from '@hono/node-server'
import { type Address, createWalletClient, encodeFunctionData, type Hex, http, keccak256, parseEther, parseUnits, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { readLaunchState } from '../../lib/deploy/records/launchState.js'
import type { DeployServices } from '../../lib/deploy/services.js'
import { createLaunchEndpoint } from '../../lib/launches/endpoint.js'
import type { LaunchDetail } from '../../lib/launches/schema.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices } from '../../lib/read/services.js'
import { ib20Abi, ROLES, tokenAt } from '../support/b20Token.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { deployUniswapV4, swapCalldata, type UniswapV4 } from '../support/uniswapV4.js'

// After the launch, on anvil with the B20 emulator and Uniswap v4's own contracts: a pooled launch trades, then
// token_status and GET /api/launches/{address} tell the fees its position earned, and the calls collect_fees prepares,
// sent from the owner's own account, deliver exactly that, to the wei. Both actions need no key, and MCP answers as
// HTTP does.

describe('a launched token’s powers and its pool’s fees (anvil, the B20 emulator, Uniswap v4’s own contracts)', () => {
  let stack: DeployStack
  let v4: UniswapV4
  let services: DeployServices
  let handle: (request: Request) => Promise<Response>
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'memory', env: { DEPLOY_DAILY_CAP: '1000' } })
    v4 = await deployUniswapV4(stack.chain)
    const instance = stack.newInstance({
      env: {
        UNISWAP_V4_POOL_MANAGER: v4.poolManager,
        UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
        UNISWAP_V4_STATE_VIEW: v4.stateView,
        PERMIT2_ADDRESS: v4.permit2,
      },
    })
    services = instance.services
    handle = instance.handle
  })
  afterAll(() => stack?.close())

  const post = (body: unknown, key?: string | null) => stack.post(body, { instance: handle, key })
  const newAccount = async () => {
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    await stack.chain.fund(account.address, parseEther('100'))
    return Object.assign(account, { key })
  }
  const send = async (account: PrivateKeyAccount, tx: { to: Address; data: Hex; value?: bigint }) => {
    const wallet = createWalletClient({ account, transport: http(stack.chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ ...tx, chain: null })
    return stack.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }

  /** GET /api/launches/{address} over a read instance on the stack's store, held to the OpenAPI document. */
  function launchEndpoint() {
    const read = createReadServices({
      env: { STORE_KEY_PREFIX: services.config.storePrefix, GECKOTERMINAL_BASE_URL: '' },
      store: stack.store,
      logger: createLogger({ write: () => {} }),
      gecko: null,
    })
    const endpoint = createLaunchEndpoint({
      read: () => read,
      config: () => ({ publicLaunches: true, chainId: 8453 }),
      deploy: deployServicesFrom(() => services),
    })
    return withOpenApiCheck('/api/launches/{address}', endpoint)
  }

  /**
   * Runs SKILL.md's owner round trip (collect_fees, the calls sent, token_status) as a user would, in a child process,
   * against this instance served over HTTP and the stack's chain; answers what it printed.
   */
  async function runSkillRoundTrip({ token, ownerKey }: { token: Address; ownerKey: Hex }): Promise<string> {
    const server = createServer(getRequestListener((request) => handle(request)))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const dir = mkdtempSync(join(tmpdir(), 'skill-owner-'))
    try {
      const skill = readFileSync(join(import.meta.dirname, '../../SKILL.md'), 'utf8')
      const snippet = /## Run what you launched[\s\S]*?```ts\n([\s\S]*?)```/.exec(skill)![1]!
      const { port } = server.address() as AddressInfo
      const filled = snippet
        .replace("'0xB2…'", `'${token}'`)
        .replace('http()', `http('${stack.chain.rpcUrl}')`)
        .replace('https://<host>', `http://127.0.0.1:${port}`)
      symlinkSync(join(import.meta.dirname, '../../node_modules'), join(dir, 'node_modules'), 'dir')
      writeFileSync(join(dir, 'owner.mts'), filled)
      return await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', join(dir, 'owner.mts')],
          { cwd: dir, encoding: 'utf8', env: { ...process.env, OWNER_KEY: ownerKey } },
          (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
        ),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
      server.close()
    }
  }

  /** One MCP tools/call over this instance's deploy side, with or without a key; answers the tool's result. */
  async function callTool(name: string, args: Record<string, unknown>, key?: string) {
    const unused = async () => new Response('{}')
    const mcp = createMcpEndpoint({
      controlRoom: unused,
      tokenSearch: unused,
      tokenOhlcv: unused,
      launches: unused,
      deploy: deployServicesFrom(() => services),
    })
    const response = await mcp.fetch(
      new Request('https://svc.test/api/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      }),
    )
    const { result } = (await response.json()) as { result: { structuredContent: Record<string, unknown>; isError?: boolean } }
    return result
  }

  it('token_status, GET /api/launches/{address} and collect_fees agree on the fees, and collecting delivers them to the wei', async () => {
    const [owner, trader] = [await newAccount(), await newAccount()]
    const launched = await post({
      action: 'agent_deploy',
      name: 'Managed Token',
      symbol: 'MNG',
      admin: owner.address,
      initialSupply: '1000000000',
      pool: { amount: '600000000', startingMarketCapEth: '10' },
      waitSeconds: 6,
    })
    expect(launched.body).toMatchObject({ ok: true, receipt: { status: 'confirmed', pool: { status: 'seeded' } } })
    const token = launched.body.predictedAddress as Address
    const { pool } = launched.body.receipt
    const key = { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks }
    // A buy and a sell: the position earns fees in both currencies.
    const buyEth = parseEther('0.1')
    expect((await send(trader, { to: v4.swapRouter, data: swapCalldata(key, true, buyEth), value: buyEth })).status).toBe('success')
    const erc20 = tokenAt(stack.chain.publicClient as never, token)
    const sold = (await erc20.balanceOf(trader.address)) / 2n
    await send(trader, { to: token, data: encodeFunctionData({ abi: ib20Abi, functionName: 'approve', args: [v4.swapRouter, sold] }) })
    expect((await send(trader, { to: v4.swapRouter, data: swapCalldata(key, false, sold) })).status).toBe('success')

    // token_status without a key: the token's powers, metadata and pool now.
    const status = await post({ action: 'token_status', token }, null)
    expect(status.status).toBe(200)
    expect(status.headers.get('ratelimit-policy')).toBe('"actions";q=30;w=60')
    expect(status.body).toMatchObject({
      ok: true,
      token,
      rolesComplete: true,
      powers: {
        admins: [owner.address],
        minters: [owner.address],
        pausers: [],
        metadataEditors: [],
        supplyCap: null,
        totalSupply: '1000000000',
        paused: { transfer: false, mint: false, burn: false },
        signerRoles: [],
      },
      metadata: null,
      pool: { poolId: pool.poolId, positionId: pool.positionId, owner: owner.address },
    })
    const { feesOwed } = status.body.pool
    // 1 % of each trade, rounded down by the pool's arithmetic; whole units and base units say the same amount.
    expect(BigInt(feesOwed.ethWei)).toBeLessThanOrEqual(buyEth / 100n)
    expect(BigInt(feesOwed.ethWei)).toBeGreaterThan(buyEth / 100n - 10n ** 6n)
    expect(BigInt(feesOwed.tokenUnits)).toBeGreaterThan(sold / 100n - 10n ** 6n)
    expect(parseEther(feesOwed.eth)).toBe(BigInt(feesOwed.ethWei))
    expect(parseUnits(feesOwed.token, 18)).toBe(BigInt(feesOwed.tokenUnits))

    // GET /api/launches/{address}: the feed's entry, with the same powers and fees (nothing traded since).
    const get = launchEndpoint()
    const response = await get(new Request(`https://svc.test/api/launches/${token}`))
    expect(response.status).toBe(200)
    const detail = (await response.json()) as LaunchDetail
    expect(detail).toMatchObject({ address: token, name: 'Managed Token', status: 'confirmed', powers: status.body.powers })
    expect(detail.pool).toMatchObject({ poolId: pool.poolId, fee: 10000, owner: owner.address, positionId: pool.positionId, feesOwed })
    expect(response.headers.get('cache-control')).toContain('max-age=15')
    const notLaunched = await get(new Request(`https://svc.test/api/launches/${trader.address}`))
    expect(notLaunched.status).toBe(404)
    expect(await notLaunched.json()).toMatchObject({ code: 'NOT_A_LAUNCH' })

    // collect_fees without a key: calls for the owner's wallet, simulated from the owner's account.
    const prepared = await post({ action: 'collect_fees', token }, null)
    expect(prepared.body).toMatchObject({ ok: true, status: 'prepared', chainId: 8453, from: owner.address, feesOwed, simulated: true })
    expect(prepared.body.calls).toEqual([{ to: v4.positionManager, data: expect.stringMatching(/^0x/), value: '0x00' }])

    // MCP answers as HTTP does, with or without a key.
    const mcpStatus = await callTool('token_status', { token })
    expect(mcpStatus.isError).toBeUndefined()
    expect(mcpStatus.structuredContent).toEqual(status.body)
    const mcpCollect = await callTool('collect_fees', { token }, 'test-agent-key-bob-0123456789')
    expect(mcpCollect.structuredContent).toMatchObject({ status: 'prepared', from: owner.address, feesOwed })
    expect((mcpCollect.structuredContent.calls as { to: string }[])[0]!.to).toBe(v4.positionManager)

    // The owner sends the prepared call: what arrives is feesOwed, to the wei.
    const [ethBefore, tokensBefore] = [
      await stack.chain.publicClient.getBalance({ address: owner.address }),
      await erc20.balanceOf(owner.address),
    ]
    const [call] = prepared.body.calls as { to: Address; data: Hex; value: Hex }[]
    const collected = await send(owner, { to: call!.to, data: call!.data, value: BigInt(call!.value) })
    expect(collected.status).toBe('success')
    const ethAfter = await stack.chain.publicClient.getBalance({ address: owner.address })
    expect(ethAfter - ethBefore + collected.gasUsed * collected.effectiveGasPrice).toBe(BigInt(feesOwed.ethWei))
    expect((await erc20.balanceOf(owner.address)) - tokensBefore).toBe(BigInt(feesOwed.tokenUnits))
    // Collected: nothing is owed any more.
    const after = await post({ action: 'token_status', token }, null)
    expect(after.body.pool.feesOwed).toEqual({ eth: '0', token: '0', ethWei: '0', tokenUnits: '0' })

    // Another buy, then the owner's round trip exactly as SKILL.md writes it (the host, RPC, token and key filled in).
    expect((await send(trader, { to: v4.swapRouter, data: swapCalldata(key, true, buyEth), value: buyEth })).status).toBe('success')
    const tokensBeforeSkill = await erc20.balanceOf(owner.address)
    const out = await runSkillRoundTrip({ token, ownerKey: owner.key })
    expect(out).toMatch(/eth: '0',\s+token: '0'/)
    expect(await erc20.balanceOf(owner.address)).toBe(tokensBeforeSkill) // a buy pays its fee in ETH only
    expect(await stack.chain.publicClient.getBalance({ address: owner.address })).toBeGreaterThan(ethAfter)
  })

  it('names the roles granted after birth, the signer’s own, a pause and the cap; refuses a token not launched here', async () => {
    const launched = await post({
      action: 'agent_deploy',
      name: 'Kept Token',
      symbol: 'KPT',
      initialSupply: '1000',
      recipient: (await newAccount()).address,
      supplyCap: '5000',
      waitSeconds: 6,
    })
    expect(launched.body).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    const token = launched.body.predictedAddress as Address
    const first = await post({ action: 'token_status', token })
    expect(first.body.powers).toMatchObject({ admins: [stack.signer], minters: [stack.signer], supplyCap: '5000', totalSupply: '1000' })
    expect(first.body.powers.signerRoles.sort()).toEqual(['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'])
    expect(first.body.pool).toBeNull()

    // The admin (the signer, impersonated on anvil) grants the pause role and pauses transfers.
    const pauser = await newAccount()
    const asSigner = async (data: Hex) => {
      await stack.chain.testClient.impersonateAccount({ address: stack.signer })
      const hash = (await stack.chain.testClient.request({
        method: 'eth_sendTransaction',
        params: [{ from: stack.signer, to: token, data }],
      } as never)) as Hex
      await stack.chain.testClient.stopImpersonatingAccount({ address: stack.signer })
      return stack.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    }
    const grant = encodeFunctionData({
      abi: [
        {
          type: 'function',
          name: 'grantRole',
          stateMutability: 'nonpayable',
          inputs: [{ type: 'bytes32' }, { type: 'address' }],
          outputs: [],
        },
      ],
      args: [PAUSE_ROLE, pauser.address],
    })
    expect((await asSigner(grant)).status).toBe('success')
    const pause = encodeFunctionData({
      abi: [{ type: 'function', name: 'pause', stateMutability: 'nonpayable', inputs: [{ type: 'uint8[]' }], outputs: [] }],
      args: [[0]],
    })
    expect((await send(pauser, { to: token, data: pause })).status).toBe('success')
    const later = await post({ action: 'token_status', token }, null)
    expect(later.body.powers).toMatchObject({ pausers: [pauser.address], paused: { transfer: true, mint: false, burn: false } })
    expect(await erc20Of(token).hasRole(ROLES.admin, stack.signer)).toBe(true)

    const notOurs = await post({ action: 'token_status', token: '0xb200000000000000000000aaaaaaaaaaaaaaaa01' }, null)
    expect(notOurs).toMatchObject({ status: 404, body: { ok: false, code: 'NOT_A_LAUNCH' } })
    // Once the older deploys were given their pointers (the marker), an address that is no launch costs one store
    // read and no RPC call.
    const commands: string[] = []
    const store = services.store!
    const counted = {
      ...store,
      get: (key: string) => {
        commands.push('get')
        return store.get(key)
      },
      getMany: (keys: readonly string[]) => {
        commands.push('getMany')
        return store.getMany(keys)
      },
      run: ((...args: Parameters<typeof store.run>) => {
        commands.push('run')
        return store.run(...args)
      }) as typeof store.run,
      set: (key: string, value: string, ttlMs: number) => {
        commands.push('set')
        return store.set(key, value, ttlMs)
      },
    }
    const rpcBefore = stack.chain.rpcMethods.length
    const unknown = '0xb200000000000000000000bbbbbbbbbbbbbbbb02' as Address
    await expect(readLaunchState({ services: { ...services, store: counted }, token: unknown })).rejects.toMatchObject({
      code: 'NOT_A_LAUNCH',
    })
    expect(commands).toEqual(['getMany'])
    expect(stack.chain.rpcMethods.length).toBe(rpcBefore)
    // A token read a moment ago: one read again, and no write (its scan moved on by less than a stride).
    await stack.chain.testClient.mine({ blocks: 3 })
    await readLaunchState({ services: { ...services, store: counted }, token })
    expect(commands).toEqual(['getMany', 'getMany'])
    const noPool = await post({ action: 'collect_fees', token }, null)
    expect(noPool.body).toMatchObject({ ok: false, code: 'NO_POSITION' })
    // Without a key, an action that needs one is refused as before.
    expect(await post({ action: 'list_deploys' }, null)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } })
  })

  it('runs a keyed token for the agent that launched it, refuses past the cap and for another key, then hands it over', async () => {
    const holder = await newAccount()
    const launched = await post({
      action: 'agent_deploy',
      name: 'Run Token',
      symbol: 'RUN',
      initialSupply: '1000',
      recipient: holder.address,
      supplyCap: '5000',
      description: 'First words',
      waitSeconds: 6,
    })
    expect(launched.body).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    const token = launched.body.predictedAddress as Address
    const erc20 = erc20Of(token)
    const signerNonce = () => stack.chain.publicClient.getTransactionCount({ address: stack.signer })

    // update_metadata, executed: the signer is admin without the metadata role, so it takes it for the call only.
    const updated = await post({
      action: 'update_metadata',
      token,
      image: 'https://example.org/run.png',
      socials: { x: 'https://x.com/run' },
      name: 'Run Token Two',
      waitSeconds: 6,
    })
    expect(updated.body).toMatchObject({ ok: true, status: 'broadcast', kind: 'update_metadata', from: stack.signer, mined: true })
    expect(await stack.chain.publicClient.readContract({ address: token, abi: ib20Abi, functionName: 'name' })).toBe('Run Token Two')
    const afterUpdate = await post({ action: 'token_status', token }, null)
    expect(afterUpdate.body.metadata).toEqual({
      name: 'Run Token Two',
      symbol: 'RUN',
      description: 'First words',
      image: 'https://example.org/run.png',
      socials: { x: 'https://x.com/run' },
    })
    expect(afterUpdate.body.powers.signerRoles.sort()).toEqual(['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'])

    // mint, executed: the chain shows the new supply.
    const mint = { action: 'mint', token, to: holder.address, amount: '250', waitSeconds: 6 }
    const minted = await stack.post(mint, { instance: handle, idempotencyKey: 'run-mint-0001' })
    expect(minted.body).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint', mined: true })
    // The same key and body again: the first answer, nothing sent twice.
    const replayed = await stack.post(mint, { instance: handle, idempotencyKey: 'run-mint-0001' })
    expect(replayed.body).toEqual(minted.body)
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    expect(await erc20.balanceOf(holder.address)).toBe(parseUnits('1250', 18))

    // Over MCP with an idempotencyKey: sent once, the same answer again.
    const nonceBeforeMcp = await signerNonce()
    const mintArgs = { token, to: holder.address, amount: '1', waitSeconds: 6, idempotencyKey: 'run-mcp-mint-0001' }
    const viaMcp = await callTool('mint', mintArgs, AGENT_KEYS.alice)
    expect(viaMcp.structuredContent).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint', mined: true })
    expect((await callTool('mint', mintArgs, AGENT_KEYS.alice)).structuredContent).toEqual(viaMcp.structuredContent)
    expect(await signerNonce()).toBe(nonceBeforeMcp + 1)
    expect(await erc20.balanceOf(holder.address)).toBe(parseUnits('1251', 18))

    // Refused with nothing sent: past the cap (the room left named), another agent's key, a key-less caller.
    const before = await signerNonce()
    const over = await post({ action: 'mint', token, to: holder.address, amount: '3750' })
    expect(over.body).toMatchObject({ ok: false, code: 'SUPPLY_CAP_EXCEEDED', roomLeft: '3749' })
    expect(over.body.details[0]).toMatchObject({ field: 'amount' })
    expect(await post({ action: 'mint', token, to: holder.address, amount: '1' }, AGENT_KEYS.bob)).toMatchObject({
      status: 403,
      body: { ok: false, code: 'NOT_YOUR_TOKEN' },
    })
    expect(await post({ action: 'transfer_admin', token, to: holder.address }, null)).toMatchObject({
      status: 403,
      body: { code: 'NOT_YOUR_TOKEN' },
    })
    // KMS failing on the way: the sender's refusal as it is, the nonce given back.
    stack.kms.setFault('truncated')
    try {
      expect((await post({ action: 'mint', token, to: holder.address, amount: '1' })).body).toEqual({
        ok: false,
        code: 'SIGNER_UNAVAILABLE',
        error: expect.any(String),
        retryAfterSeconds: 10,
      })
    } finally {
      stack.kms.setFault(null)
    }
    expect(await signerNonce()).toBe(before)

    // transfer_admin, executed in one transaction: the new admin gets admin and minter, the signer keeps nothing.
    const owner = await newAccount()
    const handed = await post({ action: 'transfer_admin', token, to: owner.address, waitSeconds: 6 })
    expect(handed.body).toMatchObject({ ok: true, status: 'broadcast', kind: 'transfer_admin', mined: true })
    expect(await signerNonce()).toBe(before + 1)
    expect([await erc20.hasRole(ROLES.admin, owner.address), await erc20.hasRole(ROLES.mint, owner.address)]).toEqual([true, true])
    const handedOver = await post({ action: 'token_status', token }, null)
    expect(handedOver.body.powers).toMatchObject({ admins: [owner.address], minters: [owner.address], signerRoles: [] })

    // The same actions now answer prepared calls for the new admin, who sends them from its own account.
    const mintCalls = await post({ action: 'mint', token, to: owner.address, amount: '10' })
    expect(mintCalls.body).toMatchObject({
      ok: true,
      status: 'prepared',
      chainId: 8453,
      from: owner.address,
      simulated: true,
      atomicRequired: false,
    })
    const editCalls = await post({ action: 'update_metadata', token, description: 'Owner words' }, null)
    expect(editCalls.body).toMatchObject({ status: 'prepared', from: owner.address, atomicRequired: true })
    expect(editCalls.body.calls).toHaveLength(3)
    for (const prepared of [mintCalls.body, editCalls.body])
      for (const { to, data, value } of prepared.calls as { to: Address; data: Hex; value: Hex }[])
        expect((await send(owner, { to, data, value: BigInt(value) })).status).toBe('success')
    expect(await erc20.balanceOf(owner.address)).toBe(parseUnits('10', 18))
    const ownerEdited = await post({ action: 'token_status', token }, null)
    expect(ownerEdited.body.metadata).toMatchObject({ description: 'Owner words', image: 'https://example.org/run.png' })
    expect(ownerEdited.body.powers.metadataEditors).toEqual([])
    expect(await signerNonce()).toBe(before + 1)
  })

  it('renounce previews who keeps what, then leaves the signer with no role; MCP answers as HTTP', async () => {
    const keeper = await newAccount()
    const launched = await post({
      action: 'agent_deploy',
      name: 'Gone Token',
      symbol: 'GONE',
      initialSupply: '10',
      recipient: keeper.address,
      waitSeconds: 6,
    })
    const token = launched.body.predictedAddress as Address
    const preview = await post({ action: 'renounce', token })
    expect(preview.body).toMatchObject({ ok: true, status: 'preview', from: stack.signer, rolesComplete: true })
    // Who keeps what is a public fact: the same preview without a key.
    expect((await post({ action: 'renounce', token }, null)).body).toEqual(preview.body)
    expect(preview.body.keeps).toEqual([
      { role: 'DEFAULT_ADMIN_ROLE', accounts: [] },
      { role: 'MINT_ROLE', accounts: [] },
      { role: 'PAUSE_ROLE', accounts: [] },
      { role: 'METADATA_ROLE', accounts: [] },
    ])
    expect(preview.body.effect).toContain('last admin')
    const viaMcp = await callTool('renounce', { token }, AGENT_KEYS.alice)
    expect(viaMcp.structuredContent).toEqual(preview.body)
    const done = await post({ action: 'renounce', token, confirm: true, waitSeconds: 6 })
    expect(done.body).toMatchObject({ ok: true, status: 'broadcast', kind: 'renounce', mined: true })
    expect([await erc20Of(token).hasRole(ROLES.admin, stack.signer), await erc20Of(token).hasRole(ROLES.mint, stack.signer)]).toEqual([
      false,
      false,
    ])
    const after = await post({ action: 'token_status', token }, null)
    expect(after.body.powers).toMatchObject({ admins: [], minters: [], signerRoles: [] })
    const again = await callTool('renounce', { token, confirm: true }, AGENT_KEYS.alice)
    const http = await post({ action: 'renounce', token, confirm: true })
    expect(http.body).toMatchObject({ ok: false, code: 'NO_ROLES' })
    expect(again.structuredContent).toEqual(http.body)
  })

  it('counts an agent’s executed actions against their own rolling cap, and refuses past it with nothing sent', async () => {
    const capped = stack.newInstance({ env: { TOKEN_ACTION_DAILY_CAP: '1' } })
    const asBob = (body: unknown) => stack.post(body, { instance: capped.handle, key: AGENT_KEYS.bob })
    const holder = await newAccount()
    const launched = await asBob({
      action: 'agent_deploy',
      name: 'Capped Token',
      symbol: 'CAPT',
      initialSupply: '10',
      recipient: holder.address,
      waitSeconds: 6,
    })
    const token = launched.body.predictedAddress as Address
    expect((await asBob({ action: 'mint', token, to: holder.address, amount: '1', waitSeconds: 6 })).body).toMatchObject({
      status: 'broadcast',
    })
    const nonce = await stack.chain.publicClient.getTransactionCount({ address: stack.signer })
    const refused = await asBob({ action: 'mint', token, to: holder.address, amount: '1' })
    expect(refused.body).toMatchObject({ ok: false, code: 'AGENT_CAP_REACHED', retryAt: expect.any(String) })
    expect(await stack.chain.publicClient.getTransactionCount({ address: stack.signer })).toBe(nonce)
    // Several calls go through the signer's EIP-7702 delegate: one whose code is not the pinned one is never authorized.
    const unchecked = stack.newInstance({ env: { EIP7702_DELEGATE: '0x000000000000000000000000000000000000dEaD' } })
    const handOver = { action: 'transfer_admin', token, to: holder.address }
    expect((await stack.post(handOver, { instance: unchecked.handle, key: AGENT_KEYS.bob })).body).toMatchObject({
      ok: false,
      code: 'DELEGATION_UNAVAILABLE',
    })
    expect(await stack.chain.publicClient.getTransactionCount({ address: stack.signer })).toBe(nonce)
    // A dry run sends nothing, so it is not counted.
    expect((await asBob({ action: 'mint', token, to: holder.address, amount: '1', dryRun: true })).body).toMatchObject({
      status: 'simulated',
    })
  })

  const PAUSE_ROLE = keccak256(toHex('PAUSE_ROLE'))
  const erc20Of = (token: Address) => tokenAt(stack.chain.publicClient as never, token)
})
