import { createRequire } from 'node:module'
import { createWalletClient, encodeFunctionData, type Hex, http, keccak256, parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, encodeCreateB20, MINT_ROLE, predictB20Address } from '../../lib/chain/b20.js'
import {
  batchAccountAbi,
  decodeBatchRevert,
  delegationDesignator,
  encodeExecuteBatch,
  SIMPLE_7702_ACCOUNT_ADDRESS,
  SIMPLE_7702_ACCOUNT_CODE_HASH,
} from '../../lib/chain/batchAccount.js'
import { readTokenBirth } from '../../lib/chain/tokenBirth.js'
import { explainLaunchRevert } from '../../lib/deploy/pool/launchRevert.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { ib20Abi, tokenAt } from '../support/b20Token.js'

// Simple7702Account, the signer's EIP-7702 delegate: the code the service pins is the npm package's compiled artifact
// (what the tests deploy, and what docs/operations.md has the health check hold Base's to); and B20's zero mint, which
// a pool holding the whole supply would have sent.

const artifact = createRequire(import.meta.url)('@account-abstraction/contracts/artifacts/Simple7702Account.json') as {
  deployedBytecode: Hex
  abi: { type: string; name?: string; inputs?: { type: string; components?: { type: string }[] }[] }[]
}

describe('Simple7702Account v0.8 and the B20 emulator on anvil (Prague)', () => {
  let chain: AnvilChain
  beforeAll(async () => {
    chain = await startAnvilChain()
  })
  afterAll(() => chain?.stop())

  it('pins the artifact’s deployedBytecode: its hash is the service’s, and the code the tests place at Base’s address', async () => {
    expect(keccak256(artifact.deployedBytecode)).toBe(SIMPLE_7702_ACCOUNT_CODE_HASH)
    const placed = await chain.publicClient.getCode({ address: SIMPLE_7702_ACCOUNT_ADDRESS })
    expect(keccak256(placed!)).toBe(SIMPLE_7702_ACCOUNT_CODE_HASH)
    // The ABI the service encodes by is the artifact's: executeBatch((address,uint256,bytes)[]) and ExecuteError.
    const executeBatch = artifact.abi.find((item) => item.name === 'executeBatch')!
    expect(executeBatch.inputs![0]!.components!.map((c) => c.type)).toEqual(['address', 'uint256', 'bytes'])
    expect(artifact.abi.find((item) => item.name === 'ExecuteError')!.inputs!.map((i) => i.type)).toEqual(['uint256', 'bytes'])
    expect(batchAccountAbi.map((item) => item.name)).toEqual(['executeBatch', 'ExecuteError'])
  })

  it('creates a token from inside the account’s own batch at the address predicted from the account: msg.sender stays the signer', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await chain.fund(account.address, parseEther('10'))
    const salt = toHex(55_001n, { size: 32 })
    const createB20 = encodeCreateB20({ variant: 'asset', name: 'Batched', symbol: 'BAT', admin: account.address, decimals: 18 }, salt)
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) })
    const nonce = await chain.publicClient.getTransactionCount({ address: account.address })
    const authorization = await account.signAuthorization({ chainId: 8453, contractAddress: SIMPLE_7702_ACCOUNT_ADDRESS, nonce: nonce + 1 })
    const hash = await wallet.sendTransaction({
      chain: null,
      to: account.address,
      data: encodeExecuteBatch([{ target: B20_FACTORY_ADDRESS, value: 0n, data: createB20 }]),
      authorizationList: [authorization],
    })
    expect((await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    expect(await chain.publicClient.getCode({ address: account.address })).toBe(delegationDesignator(SIMPLE_7702_ACCOUNT_ADDRESS))
    const token = predictB20Address('asset', account.address, salt)
    expect(await tokenAt(chain.publicClient as never, token).hasRole(MINT_ROLE, account.address)).toBe(true)
  })

  it('takes mint(recipient, 0) as a no-op that still logs a Transfer of 0, as Base’s B20 does (base-std test_mint_success_zeroAmount)', async () => {
    const deployer = privateKeyToAccount(generatePrivateKey())
    await chain.fund(deployer.address, parseEther('10'))
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    const salt = toHex(55_002n, { size: 32 })
    const initCalls = [
      encodeFunctionData({ abi: ib20Abi, functionName: 'grantRole', args: [MINT_ROLE, deployer.address] }),
      encodeFunctionData({ abi: ib20Abi, functionName: 'mint', args: [recipient, 0n] }),
    ]
    const data = encodeCreateB20({ variant: 'asset', name: 'Zero', symbol: 'ZERO', admin: deployer.address, decimals: 18 }, salt, initCalls)
    const wallet = createWalletClient({ account: deployer, transport: http(chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ chain: null, to: B20_FACTORY_ADDRESS, data })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(receipt.status).toBe('success')
    const token = predictB20Address('asset', deployer.address, salt)
    const erc20 = tokenAt(chain.publicClient as never, token)
    expect(await erc20.balanceOf(recipient)).toBe(0n)
    expect(await erc20.totalSupply()).toBe(0n)
    const transfers = receipt.logs.filter((log) => log.address.toLowerCase() === token.toLowerCase() && log.topics.length === 3)
    expect(transfers.map((log) => BigInt(log.data))).toEqual([0n])
  })

  it('reads a batch’s birth through its createB20: a lone mint is the pool’s (the whole supply in the pool sends no zero mint)', () => {
    const signer = privateKeyToAccount(generatePrivateKey()).address
    const admin = privateKeyToAccount(generatePrivateKey()).address
    const initCalls = [encodeFunctionData({ abi: ib20Abi, functionName: 'mint', args: [signer, 1000n] })]
    const createB20 = encodeCreateB20(
      { variant: 'asset', name: 'All In', symbol: 'ALL', admin, decimals: 18 },
      toHex(1n, { size: 32 }),
      initCalls,
    )
    const batch = encodeExecuteBatch([{ target: B20_FACTORY_ADDRESS, value: 0n, data: createB20 }])
    expect(readTokenBirth(batch)).toMatchObject({ mint: null, poolMint: { to: signer, units: 1000n } })
    // The same calldata sent plainly (a deploy without a pool) is a mint to its recipient.
    expect(readTokenBirth(createB20)).toMatchObject({ mint: { to: signer, units: 1000n }, poolMint: null })
  })

  it('decodes ExecuteError(index, reason) to the failing call and its cause', () => {
    const reason = encodeFunctionData({ abi: [{ type: 'function', name: 'PoolAlreadyInitialized', inputs: [] }] as const })
    const data = encodeFunctionData({
      abi: [{ type: 'function', name: 'ExecuteError', inputs: [{ type: 'uint256' }, { type: 'bytes' }] }] as const,
      args: [3n, reason],
    })
    expect(decodeBatchRevert(data)).toEqual({ index: 3, reason })
    expect(explainLaunchRevert(data)).toMatchObject({ index: 3, cause: 'pool-initialized', revert: { name: 'PoolAlreadyInitialized' } })
    expect(explainLaunchRevert(data).why).toMatch(/pool.*initialized/)
  })
})
