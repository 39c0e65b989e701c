import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { keccak256, parseTransaction, recoverTransactionAddress, toHex, type Hex } from 'viem'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, MINT_ROLE, predictB20Address } from '../../lib/chain/b20.js'
import { activationStubAbi } from '../support/anvil.js'
import { AGENT_KEYS, startDeployStack, type DeployStack } from '../support/deployStack.js'

const deployBody = (over: Record<string, unknown> = {}) => ({ action: 'agent_deploy', name: 'Test Token', symbol: 'TEST', ...over })
const emulatorRoleAbi = [
  { type: 'function', name: 'hasRole', stateMutability: 'view', inputs: [{ type: 'address' }, { type: 'bytes32' }, { type: 'address' }], outputs: [{ type: 'bool' }] },
] as const

describe('POST /api/b20-skill on anvil (chain 8453) with the B20 emulator, the KMS server and real Redis', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack.close())

  it('deploys: simulated, KMS-signed, broadcast, mined, and the receipt gives the token address', async () => {
    const salt = toHex(1234n, { size: 32 })
    const { status, body } = await stack.post(deployBody({ salt }))
    expect(status).toBe(200)
    expect(Object.keys(body)).toEqual(['ok', 'status', 'txHash', 'predictedAddress', 'explorerUrl', 'token', 'signer', 'chainId'])
    expect(body).toMatchObject({
      ok: true,
      status: 'broadcast',
      predictedAddress: predictB20Address('asset', stack.signer, salt),
      explorerUrl: `https://basescan.org/tx/${body.txHash}`,
      token: { name: 'Test Token', symbol: 'TEST', variant: 'asset', decimals: 18 },
      signer: stack.signer,
      chainId: 8453,
    })
    expect(body.txHash).toMatch(/^0x[0-9a-f]{64}$/)

    // The transaction on chain is signed by the KMS key, low-s, to the factory, with no value.
    const tx = await stack.chain.publicClient.getTransaction({ hash: body.txHash })
    expect(tx.from.toLowerCase()).toBe(stack.signer.toLowerCase())
    expect(tx.to?.toLowerCase()).toBe(B20_FACTORY_ADDRESS.toLowerCase())
    expect(tx.value).toBe(0n)
    expect(tx.chainId).toBe(8453)
    expect(BigInt(tx.s!)).toBeLessThanOrEqual(0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n)

    const receipt = await stack.post({ action: 'receipt', tx_hash: body.txHash })
    expect(receipt.body).toEqual({
      ok: true,
      status: 'confirmed',
      txHash: body.txHash,
      tokenAddress: body.predictedAddress,
      blockNumber: expect.any(Number),
      explorerUrl: body.explorerUrl,
      token: { name: 'Test Token', symbol: 'TEST', decimals: 18, variant: 'asset' },
    })
    // The admin (the signer by default) holds the mint role, through the grantRole initCall.
    const canMint = await stack.chain.publicClient.readContract({ address: B20_FACTORY_ADDRESS, abi: emulatorRoleAbi, functionName: 'hasRole', args: [body.predictedAddress, MINT_ROLE, stack.signer] })
    expect(canMint).toBe(true)
    const factoryAgrees = await stack.chain.publicClient.readContract({ address: B20_FACTORY_ADDRESS, abi: b20FactoryAbi, functionName: 'getB20Address', args: [0, stack.signer, salt] })
    expect(factoryAgrees).toBe(body.predictedAddress)
  })
})
