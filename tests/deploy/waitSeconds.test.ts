import type { Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'

// waitSeconds: a deploy that waits for its block goes out with eth_sendRawTransactionSync and, mined in time, answers
// with its receipt; the nonce lock never waits with it. anvil 1.7.1 refuses the timeout as a second parameter, so
// every instance here learns to send the method with one parameter first (as it would on such a node).

const deployBody = (symbol: string, extra: Record<string, unknown> = {}) => ({
  action: 'agent_deploy',
  name: 'Wait Token',
  symbol,
  ...extra,
})

describe('agent_deploy with waitSeconds (anvil, the KMS server, Upstash over redis-server)', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } })
  })
  afterEach(() => {
    stack.chain.setSyncMode(null)
    stack.chain.releaseHeld()
  })
  afterAll(() => stack.close())

  const mined = async (hash: Hex) => {
    const receipt = await stack.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 })
    expect(receipt.status).toBe('success')
    return (await stack.chain.publicClient.getTransaction({ hash })).nonce
  }
  const sends = (from: number) => stack.chain.rpcMethods.slice(from).filter((m) => m.startsWith('eth_sendRawTransaction'))

  it('answers the token address in the same call: status broadcast plus the confirmed receipt', async () => {
    const body = deployBody('WAIT', { waitSeconds: 5, initialSupply: '1000', recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })
    const answer = await stack.post(body)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      receipt: {
        ok: true,
        status: 'confirmed',
        txHash: answer.body.txHash,
        tokenAddress: answer.body.predictedAddress,
        blockNumber: expect.any(Number),
        minted: [{ to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: '1000' }],
      },
    })
    // The receipt in the answer is what action "receipt" says.
    const receipt = await stack.post({ action: 'receipt', tx_hash: answer.body.txHash })
    expect(receipt.body).toEqual(answer.body.receipt)
  })

  it('falls back to the broadcast answer when the node answers EIP-7966 error 4 (not included in time)', async () => {
    stack.chain.setSyncMode('timeout')
    const answer = await stack.post(deployBody('TIMEOUT', { waitSeconds: 2 }))
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(answer.body.receipt).toBeUndefined()
    await mined(answer.body.txHash)
    const receipt = await stack.post({ action: 'receipt', tx_hash: answer.body.txHash })
    expect(receipt.body).toMatchObject({ ok: true, status: 'confirmed', tokenAddress: answer.body.predictedAddress })
  })

  it('sends the plain way on a node without the method, and stops asking it', async () => {
    const { services, handle } = stack.newInstance()
    stack.chain.setSyncMode('missing')
    const from = stack.chain.rpcMethods.length
    const first = await stack.post(deployBody('NOSYNC1', { waitSeconds: 3 }), { instance: handle })
    expect(first.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(first.body.receipt).toBeUndefined()
    expect(services.syncSender.form).toBe('unsupported')
    const second = await stack.post(deployBody('NOSYNC2', { waitSeconds: 3 }), { instance: handle })
    expect(second.body).toMatchObject({ ok: true, status: 'broadcast' })
    // One try of the method, then plain sends only.
    expect(sends(from)).toEqual(['eth_sendRawTransactionSync', 'eth_sendRawTransaction', 'eth_sendRawTransaction'])
    await Promise.all([mined(first.body.txHash), mined(second.body.txHash)])
  })

  it('never holds the nonce lock while waiting: other deploys, here and on another instance, go out meanwhile', async () => {
    const other = stack.newInstance()
    stack.chain.setSyncMode('hold')
    let waiterAnswered = false
    const waiting = stack.post(deployBody('HELD', { waitSeconds: 6 })).then((answer) => {
      waiterAnswered = true
      return answer
    })
    // Both others are sent and answered while the waiting deploy's answer is still held by the node.
    const [here, there] = await Promise.all([stack.post(deployBody('HERE')), stack.post(deployBody('THERE'), { instance: other.handle })])
    expect(here.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(there.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(waiterAnswered).toBe(false)
    stack.chain.releaseHeld()
    const answer = await waiting
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast', receipt: { status: 'confirmed' } })
    const nonces = (await Promise.all([answer, here, there].map((a) => mined(a.body.txHash)))).sort((a, b) => a - b)
    expect(nonces[2]! - nonces[0]!).toBe(2)
  })

  it('leaves no gap for good when the node refuses a waiting send after the lock moved on: the next claim takes its nonce', async () => {
    const start = await stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
    // The node refuses the waiting deploy's nonce, late: the next deploy has gone out on the nonce after it by then.
    stack.chain.refuseNonce(start, 'replacement transaction underpriced', { hold: true })
    const from = stack.chain.rpcMethods.length
    const refusing = stack.post(deployBody('REFUSED', { waitSeconds: 2 }))
    await expect.poll(() => sends(from)).toEqual(['eth_sendRawTransactionSync'])
    const behind = await stack.post(deployBody('BEHIND'))
    expect(behind.body).toMatchObject({ ok: true, status: 'broadcast' })
    stack.chain.releaseHeld()
    const refused = await refusing
    stack.chain.refuseNonce(start, null)
    expect(refused.body).toMatchObject({ ok: false, code: 'RPC_REJECTED' })
    // The gap: the deploy behind holds the next nonce and waits for the refused one's. The next deploy takes the
    // nonce given back (the fence hands it out first), and both are mined.
    const next = await stack.post(deployBody('NEXT'))
    expect(next.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(await mined(behind.body.txHash)).toBe(start + 1)
    expect(await mined(next.body.txHash)).toBe(start)
  })

  it('is offered by MCP deploy_token too', async () => {
    const mcp = createMcpEndpoint({
      controlRoom: async () => new Response('{}'),
      tokenSearch: async () => new Response('{}'),
      tokenOhlcv: async () => new Response('{}'),
      launches: async () => new Response('{}'),
      deploy: deployServicesFrom(() => stack.newInstance().services),
    })
    const response = await mcp.fetch(
      new Request('https://svc.test/api/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${AGENT_KEYS.bob}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'deploy_token', arguments: { name: 'Mcp Wait', symbol: 'MCPW', waitSeconds: 4 } },
        }),
      }),
    )
    const result = (await response.json()) as { result: { structuredContent: Record<string, any>; content: { text: string }[] } }
    expect(result.result.structuredContent).toMatchObject({ ok: true, status: 'broadcast', receipt: { status: 'confirmed' } })
    expect(result.result.content[0]!.text).toMatch(/^Confirmed in block \d+: token 0x/)
  })
})
