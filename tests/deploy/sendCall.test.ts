import { type Hex, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, encodeCreateB20, predictB20Address } from '../../lib/chain/b20.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { sendCallUnderLock } from '../../lib/deploy/sender/sendCall.js'
import { listUnmined, readTransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'

// The sender on its own, as an action that sends a transaction uses it: one call, from the simulation to the
// broadcast, under the signer's nonce lock.

let stack: DeployStack
beforeAll(async () => {
  stack = await startDeployStack({ storeKind: 'memory' })
}, 60_000)
afterAll(async () => {
  await stack?.close()
})

/** A token's creation as one call of the signer, and the record fields an action would give it. */
function creation(salt: Hex) {
  const spec = { variant: 'asset', name: 'Sent Token', symbol: 'SENT', admin: stack.signer, decimals: 18 } as const
  const predictedAddress = predictB20Address('asset', stack.signer, salt)
  return {
    call: { to: B20_FACTORY_ADDRESS, data: encodeCreateB20(spec, salt) },
    record: {
      kind: 'deploy',
      agent: 'f'.repeat(64),
      predictedAddress,
      name: spec.name,
      symbol: spec.symbol,
      variant: 'asset',
      decimals: 18,
    } as const,
  }
}

describe('sendCallUnderLock', () => {
  it('simulates, signs, keeps the record and sends one call; waiting for its block, it answers the receipt', async () => {
    const { services } = stack.newInstance()
    const signer = await services.getSigner!()
    const { call, record } = creation(toHex(51_001n, { size: 32 }))
    const sent = await sendCallUnderLock({
      services: { ...services, nonceLocks: services.nonceLocks! },
      store: stack.store,
      signer,
      call,
      record,
      inAgentHistory: false,
      waitSeconds: 6,
    })
    expect(sent).toMatchObject({ ok: true, outcome: 'mined', receipt: { status: 'success' } })
    if (!sent.ok) return
    const keys = deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId })
    expect(await readTransactionRecord(stack.store, keys, sent.record.txHash)).toMatchObject({
      kind: 'deploy',
      to: B20_FACTORY_ADDRESS,
      data: call.data,
    })
    expect(await stack.chain.publicClient.getCode({ address: record.predictedAddress })).not.toBe(undefined)
  })

  it('refuses a call that would revert with the decoded revert, signing nothing and keeping no record', async () => {
    const { services } = stack.newInstance()
    const signer = await services.getSigner!()
    // The same salt again: the token exists already.
    const { call, record } = creation(toHex(51_001n, { size: 32 }))
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const keys = deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId })
    const unmined = (await listUnmined(stack.store, keys, signer.address)).length
    const sent = await sendCallUnderLock({
      services: { ...services, nonceLocks: services.nonceLocks! },
      store: stack.store,
      signer,
      call,
      record,
      inAgentHistory: false,
    })
    expect(sent).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', revert: { name: 'TokenAlreadyExists' } })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect((await listUnmined(stack.store, keys, signer.address)).length).toBe(unmined)
  })
})
