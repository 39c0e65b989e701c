import {
  type Address,
  type BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  parseEventLogs,
  parseUnits,
  zeroAddress,
} from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { parseDeployIntent } from '../../lib/deploy/actions/agentDeploy.js'
import { deployToken } from '../../lib/deploy/pipeline/deployToken.js'
import { ib20Abi, ROLES, tokenAt } from '../support/b20Token.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'

const UINT128_MAX = 2n ** 128n - 1n

/** The error a token call reverts with, decoded by IB20's signatures (written out in tests/support/b20Token.ts). */
async function revertOf(attempt: Promise<unknown>): Promise<{ name: string; args: readonly unknown[] } | null> {
  try {
    await attempt
    return null
  } catch (error) {
    const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
    return { name: reverted?.data?.errorName ?? 'unknown', args: reverted?.data?.args ?? [] }
  }
}

describe('a token born through the service is a B20 token at its own address (anvil, the B20 emulators, KMS, Redis)', () => {
  let stack: DeployStack
  let admin: Address
  let holder: Address
  let publicClient: PublicClient
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } })
    // Two of anvil's unlocked accounts: they can send transactions as the admin and the holder would.
    const accounts = (await stack.chain.testClient.request({ method: 'eth_accounts' } as never)) as Address[]
    ;[admin, holder] = [getAddress(accounts[1]!), getAddress(accounts[2]!)]
    publicClient = stack.chain.publicClient as PublicClient
  })
  afterAll(() => stack.close())

  const walletOf = (account: Address) => createWalletClient({ account, transport: http(stack.chain.rpcUrl) })
  const send = (account: Address, functionName: string, args: readonly unknown[], token: Address) =>
    publicClient
      .simulateContract({ account, address: token, abi: ib20Abi, functionName, args } as never)
      .then(() => walletOf(account).writeContract({ chain: null, address: token, abi: ib20Abi, functionName, args } as never))
      .then((hash) => publicClient.waitForTransactionReceipt({ hash }))

  it('emits its birth events, then applies every role, the cap maths and the zero-receiver check after the bootstrap', async () => {
    const { body } = await stack.post({
      action: 'agent_deploy',
      name: 'Born Ready',
      symbol: 'BORN',
      admin,
      initialSupply: '1000',
      recipient: holder,
      supplyCap: '1500',
      website: 'https://example.com',
    })
    expect(body).toMatchObject({ ok: true, status: 'broadcast' })
    const address = body.predictedAddress as Address
    const receipt = await publicClient.waitForTransactionReceipt({ hash: body.txHash })
    const events = parseEventLogs({ abi: ib20Abi, logs: receipt.logs }).filter((log) => log.address.toLowerCase() === address.toLowerCase())
    expect(events.map((e) => [e.eventName, e.args])).toEqual([
      ['RoleGranted', { role: ROLES.admin, account: admin, sender: B20_FACTORY_ADDRESS }],
      ['RoleGranted', { role: ROLES.mint, account: admin, sender: B20_FACTORY_ADDRESS }],
      ['SupplyCapUpdated', { updater: B20_FACTORY_ADDRESS, oldSupplyCap: UINT128_MAX, newSupplyCap: parseUnits('1500', 18) }],
      ['Transfer', { from: zeroAddress, to: holder, value: parseUnits('1000', 18) }],
      ['ContractURIUpdated', undefined],
    ])

    const token = tokenAt(publicClient, address)
    // The factory's pass is over: a holder without the role cannot mint, nor the admin set metadata.
    expect(await revertOf(send(holder, 'mint', [holder, 1n], address))).toEqual({
      name: 'AccessControlUnauthorizedAccount',
      args: [holder, ROLES.mint],
    })
    expect(await revertOf(send(admin, 'updateContractURI', ['https://example.com/other.json'], address))).toEqual({
      name: 'AccessControlUnauthorizedAccount',
      args: [admin, ROLES.metadata],
    })
    // The cap holds for the minter: 1000 + 600 > 1500; the cap cannot go below the supply or above uint128.
    expect(await revertOf(send(admin, 'mint', [admin, parseUnits('600', 18)], address))).toEqual({
      name: 'SupplyCapExceeded',
      args: [parseUnits('1500', 18), parseUnits('1600', 18)],
    })
    expect(await revertOf(send(admin, 'updateSupplyCap', [parseUnits('999', 18)], address))).toEqual({
      name: 'InvalidSupplyCap',
      args: [parseUnits('1000', 18), parseUnits('999', 18)],
    })
    expect(await revertOf(send(admin, 'updateSupplyCap', [UINT128_MAX + 1n], address))).toMatchObject({ name: 'InvalidSupplyCap' })
    expect(await revertOf(send(admin, 'mint', [zeroAddress, 1n], address))).toEqual({ name: 'InvalidReceiver', args: [zeroAddress] })
    // Within the rules, the admin's minter mints and the holder's tokens move at once.
    await send(admin, 'mint', [admin, parseUnits('500', 18)], address)
    await send(holder, 'transfer', [admin, parseUnits('1', 18)], address)
    expect(await token.totalSupply()).toBe(parseUnits('1500', 18))
    expect(await token.balanceOf(holder)).toBe(parseUnits('999', 18))
    expect(await token.balanceOf(admin)).toBe(parseUnits('501', 18))
    // A second token from the same factory has its own storage.
    const other = await stack.post({ action: 'agent_deploy', name: 'Other', symbol: 'OTH', admin })
    expect(await tokenAt(publicClient, other.body.predictedAddress).totalSupply()).toBe(0n)
  })

  it('refuses a deploy whose initCall would revert with the decoded token error, and signs and sends nothing', async () => {
    const { services } = stack.newInstance()
    const parsed = parseDeployIntent({
      action: 'agent_deploy',
      name: 'Over Cap',
      symbol: 'OVER',
      admin,
      initialSupply: '10',
      supplyCap: '10',
    })
    if (!parsed.ok) throw new Error('valid intent expected')
    // Validation refuses a cap below the supply; the chain is the last guard, so the pipeline is handed one directly.
    const intent = { ...parsed.intent, birth: { ...parsed.intent.birth, supplyCap: parseUnits('9', 18) } }
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const sends = stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length
    const answer = await deployToken({ services, intent, agentId: 'f'.repeat(64) })
    expect(answer).toMatchObject({
      ok: false,
      code: 'SIMULATION_REVERTED',
      error: expect.stringContaining('SupplyCapExceeded'),
      revert: { name: 'SupplyCapExceeded', args: { cap: '9000000000000000000', attempted: '10000000000000000000' } },
    })
    const zeroReceiver = { ...parsed.intent, birth: { ...parsed.intent.birth, recipient: zeroAddress as Hex } }
    expect(await deployToken({ services, intent: zeroReceiver, agentId: 'f'.repeat(64) })).toMatchObject({
      code: 'SIMULATION_REVERTED',
      revert: { name: 'InvalidReceiver', args: { receiver: zeroAddress } },
    })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length).toBe(sends)
  })
})
