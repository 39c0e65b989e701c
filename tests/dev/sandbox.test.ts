import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TYPESCRIPT_ARGS } from '../support/npmStart.js'
import { fetchChecked } from '../support/openapiCheck.js'

/** A running `npm run sandbox`: its process, what it printed, and the URLs and key it printed. */
type Sandbox = { child: ChildProcess; lines: string[]; base: string; key: string; chainUrl: string }

/** Starts `npm run sandbox` on a free port and reads what it prints until it is ready. */
async function startSandbox(): Promise<Sandbox> {
  const child = spawn(process.execPath, [...TYPESCRIPT_ARGS, 'dev/sandbox.ts'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line)
    if (line.startsWith('Ctrl-C')) break
  }
  const printed = lines.join('\n')
  return {
    child,
    lines,
    base: /sandbox ready at (\S+)/.exec(printed)![1]!,
    key: /agent key: (\S+)/.exec(printed)![1]!,
    chainUrl: /chain (http:\/\/\S+)/.exec(printed)![1]!,
  }
}

/** `npm run sandbox` as a user runs it: everything local, the real api/ modules, Ctrl-C stops it all. */
describe('npm run sandbox', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startSandbox()
  }, 60_000)
  // The last case stops it; should a run end before that case, Ctrl-C all the same: a SIGKILL would leave its chain
  // (anvil) running after the test.
  afterAll(async () => {
    const child = sandbox?.child
    if (!child || child.exitCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGINT')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }, 15_000)

  const skill = (body: unknown) =>
    fetchChecked(`${sandbox.base}/api/b20-skill`, {
      method: 'POST',
      headers: { 'x-service-key': sandbox.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, any>>)

  it('prints the URLs and a ready agent key', () => {
    expect(sandbox.lines.join('\n')).toMatch(/dashboard\s+http:\/\/127\.0\.0\.1:\d+\//)
    expect(sandbox.key).toMatch(/^bcr_/)
  })

  it('serves the dashboard, market data, search and the documents', async () => {
    const base = sandbox.base
    expect((await fetch(`${base}/`)).headers.get('content-type')).toContain('text/html')
    const room = (await (await fetchChecked(`${base}/api/control-room`)).json()) as { liveActivity: unknown[] }
    expect(room.liveActivity).toHaveLength(100)
    expect(((await (await fetchChecked(`${base}/api/token-search?q=aero`)).json()) as { total: number }).total).toBeGreaterThan(0)
    expect((await fetchChecked(`${base}/openapi.json`)).status).toBe(200)
    expect(await (await fetchChecked(`${base}/skill.md`)).text()).toContain('# Base control room: agent skill')
    expect((await fetchChecked(`${base}/llms.txt`)).status).toBe(200)
  })

  it('deploys the printed curl’s token, born with supply, metadata and a seeded Uniswap v4 pool, and the receipt gives its address and mints', async () => {
    const curl = sandbox.lines.find((line) => line.includes('"action":"agent_deploy"'))!
    const body = JSON.parse(/-d '(\{.*\})'$/.exec(curl)![1]!) as Record<string, any>
    expect(body).toMatchObject({ initialSupply: expect.any(String), description: expect.any(String), admin: expect.stringMatching(/^0x/) })
    const deployed = await skill(body)
    expect(deployed).toMatchObject({
      ok: true,
      status: 'broadcast',
      chainId: 8453,
      token: { initialSupply: body.initialSupply, recipient: body.admin, metadata: { description: body.description } },
    })
    const receipt = await skill({ action: 'receipt', tx_hash: deployed.txHash })
    expect(receipt).toMatchObject({ ok: true, status: 'confirmed', tokenAddress: deployed.predictedAddress })
    // The pool's share to the signer, who seeded the pool with it, and the rest to the admin: the whole supply.
    expect(receipt.pool).toMatchObject({ status: 'seeded', owner: body.admin, positionId: expect.stringMatching(/^\d+$/) })
    const [toPool, rest] = receipt.minted as { to: string; units: string }[]
    expect(toPool).toMatchObject({ to: deployed.signer, amount: receipt.pool.amount })
    expect(rest!.to).toBe(body.admin)
    expect(BigInt(toPool!.units) + BigInt(rest!.units)).toBe(BigInt(`${body.initialSupply}${'0'.repeat(18)}`))
  })

  it('runs a launched token as printed: one mint executed by the service, one prepared for the admin’s wallet', async () => {
    const printed = sandbox.lines.filter((line) => line.includes('"action":"mint"'))
    const [executed, prepared] = printed.map((line) => JSON.parse(/-d '(\{.*\})'$/.exec(line)![1]!)) as Record<string, any>[]
    expect([printed[0]!.includes('X-Service-Key'), printed[1]!.includes('X-Service-Key')]).toEqual([true, false])
    expect(await skill(executed!)).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint', mined: true })
    const calls = await fetchChecked(`${sandbox.base}/api/b20-skill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(prepared),
    })
    expect(await calls.json()).toMatchObject({ ok: true, status: 'prepared', from: prepared!.to, calls: [{ to: prepared!.token }] })
  })

  it('pays for a deploy with the printed x402 command (no key): the token’s address in the same answer', async () => {
    const line = sandbox.lines.find((l) => l.includes('npm run pay --'))!
    const [, key, door, body, asset, max] = /X402_PAYER_KEY=(\S+) npm run pay -- (\S+) '(\{.*\})' --asset (\S+) --max (\d+)$/.exec(line)!
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...TYPESCRIPT_ARGS, 'dev/payDeploy.ts', door!, body!, '--asset', asset!, '--max', max!],
        { env: { ...process.env, X402_PAYER_KEY: key }, encoding: 'utf8' },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    )
    const paid = JSON.parse(out.split('\n')[0]!) as { status: number; answer: Record<string, any> }
    expect(paid).toMatchObject({ status: 200, answer: { ok: true, status: 'broadcast', receipt: { status: 'confirmed' } } })
    expect(paid.answer.receipt.tokenAddress).toBe(paid.answer.predictedAddress)
    expect(out).toMatch(/^settled: \{"success":true/m)
  })

  it('prints how to pay over MCP (deploy_token_paid, x402 over MCP), and its printed command deploys, the settlement in _meta', async () => {
    const printed = sandbox.lines.join('\n')
    expect(printed).toMatch(/tools\/call deploy_token_paid .* isError result, x402's PaymentRequired in structuredContent/)
    expect(printed).toContain('createPaymentPayload(paymentRequired)')
    expect(printed).toContain('params._meta {"x402/payment": <that PaymentPayload>}')
    const line = sandbox.lines.find((l) => l.includes(' --mcp '))!
    const [, key, server, args, asset, max] = /X402_PAYER_KEY=(\S+) npm run pay -- (\S+) '(\{.*\})' --mcp --asset (\S+) --max (\d+)$/.exec(
      line,
    )!
    expect(server).toBe(`${sandbox.base}/api/mcp`)
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...TYPESCRIPT_ARGS, 'dev/payDeploy.ts', server!, args!, '--mcp', '--asset', asset!, '--max', max!],
        { env: { ...process.env, X402_PAYER_KEY: key }, encoding: 'utf8' },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    )
    const paid = JSON.parse(out.split('\n')[0]!) as { isError: boolean; answer: Record<string, any> }
    expect(paid).toMatchObject({ isError: false, answer: { ok: true, status: 'broadcast', receipt: { status: 'confirmed' } } })
    expect(paid.answer.receipt.tokenAddress).toBe(paid.answer.predictedAddress)
    const settled = JSON.parse(/^settled: (.*)$/m.exec(out)![1]!) as Record<string, unknown>
    expect(settled).toMatchObject({ success: true, transaction: paid.answer.payment.transaction })
  })

  // Last: it stops the sandbox the cases above used, as a user ends a session (a sandbox of its own took 4 s more).
  it('stops everything on SIGINT: the server and the chain', async () => {
    const { child, base, chainUrl } = sandbox
    child.kill('SIGINT')
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(0)
    await expect(fetch(`${base}/api/control-room`)).rejects.toThrow()
    await expect(fetch(chainUrl, { method: 'POST', body: '{}' })).rejects.toThrow()
  }, 30_000)
})
