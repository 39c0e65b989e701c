import { type Address, encodeFunctionData, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { runAgents } from '../support/agentsCommand.js'
import { ib20Abi, ROLES } from '../support/b20Token.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'

// `npm run agents -- tokens <label>`: an agent's tokens from its deploy history, each with the roles the service's
// signer still holds on it, read from the chain in one eth_call. On anvil with the B20 emulator, the deploys made with
// a key the command itself issued, over the service's Upstash front.

const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const revokeAbi = [
  ...ib20Abi,
  { type: 'function', name: 'revokeRole', stateMutability: 'nonpayable', inputs: [{ type: 'bytes32' }, { type: 'address' }], outputs: [] },
] as const

describe('npm run agents -- tokens: an agent’s tokens and the roles the service still holds on each', () => {
  let stack: DeployStack
  let env: Record<string, string>
  let carol: string
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '100' } })
    env = {
      UPSTASH_REDIS_REST_URL: stack.upstash!.url,
      UPSTASH_REDIS_REST_TOKEN: stack.upstash!.token,
      STORE_KEY_PREFIX: stack.newInstance().services.config.storePrefix,
      BASE_RPC_URL: stack.chain.rpcUrl,
    }
    const issued = await runAgents(['issue', '--label', 'carol', '--json'], env)
    expect(issued.status).toBe(0)
    carol = (JSON.parse(issued.stdout) as { key: string }).key
  })
  afterAll(() => stack?.close())

  const deploy = async (symbol: string, over: Record<string, unknown>, key = carol) => {
    stack.clock.now += 1000 // newest first, one after the other
    const answer = await stack.post(
      { action: 'agent_deploy', name: `${symbol} Token`, symbol, initialSupply: '1000', recipient: ADMIN, ...over },
      { key },
    )
    expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true })
    return answer.body.predictedAddress as Address
  }
  /** The command's lines for carol, each split into address, symbol and roles. */
  const carolsTokens = async () => {
    const run = await runAgents(['tokens', 'carol'], env)
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    return run.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/ {2,}/))
  }

  it('lists each token once, newest first, with the roles the signer still holds or none, in one eth_call', async () => {
    const kept = await deploy('KEEP', { waitSeconds: 6 }) // no admin given: the signer is admin and minter
    const given = await deploy('GIVE', { admin: ADMIN, waitSeconds: 6 })
    const sent = await deploy('SENT', { admin: ADMIN }) // no receipt asked: its record says broadcast
    await deploy('ALICE', { admin: ADMIN, waitSeconds: 6 }, AGENT_KEYS.alice) // another agent's: not carol's

    const from = stack.chain.rpcMethods.length
    expect(await carolsTokens()).toEqual([
      [sent, 'SENT', 'unknown (not mined yet)'],
      [given, 'GIVE', 'none'],
      [kept, 'KEEP', 'DEFAULT_ADMIN_ROLE,MINT_ROLE'],
    ])
    expect(stack.chain.rpcMethods.slice(from)).toEqual(['eth_call'])

    // The service gives up minting KEEP (its signer, impersonated on anvil, revokes its own MINT_ROLE): the next list says so.
    await stack.chain.testClient.impersonateAccount({ address: stack.signer })
    const hash = (await stack.chain.testClient.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from: stack.signer,
          to: kept,
          data: encodeFunctionData({ abi: revokeAbi, functionName: 'revokeRole', args: [ROLES.mint, stack.signer] }),
        },
      ],
    } as never)) as Hex
    await stack.chain.testClient.stopImpersonatingAccount({ address: stack.signer })
    expect((await stack.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    expect((await carolsTokens()).find(([address]) => address === kept)).toEqual([kept, 'KEEP', 'DEFAULT_ADMIN_ROLE'])

    // --json, for scripts: the same, as data.
    const json = await runAgents(['tokens', 'carol', '--json'], env)
    expect(JSON.parse(json.stdout)).toEqual([
      { address: sent, symbol: 'SENT', status: 'broadcast', signerRoles: null },
      { address: given, symbol: 'GIVE', status: 'confirmed', signerRoles: [] },
      { address: kept, symbol: 'KEEP', status: 'confirmed', signerRoles: ['DEFAULT_ADMIN_ROLE'] },
    ])
  })

  it('says the roles are unknown while the chain does not answer, and refuses an agent nobody issued', async () => {
    stack.chain.setRpcDown(true)
    try {
      const lines = await carolsTokens()
      expect(lines.map(([, symbol, roles]) => [symbol, roles])).toEqual([
        ['SENT', 'unknown (not mined yet)'],
        ['GIVE', 'unknown (the chain did not answer)'],
        ['KEEP', 'unknown (the chain did not answer)'],
      ])
    } finally {
      stack.chain.setRpcDown(false)
    }
    const nobody = await runAgents(['tokens', 'nobody'], env)
    expect(nobody.status).toBe(1)
    expect(nobody.stderr).toContain('no agent with the label or digest prefix "nobody"')
    expect((await runAgents(['tokens'], env)).stderr).toContain('tokens needs a label')
  })
})
