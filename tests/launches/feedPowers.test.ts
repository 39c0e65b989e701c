import { type Address, encodeFunctionData, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChainClient } from '../../lib/chain/client.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { readTransactionRecord, updateTransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import { createLaunchEndpoint, createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import type { LaunchDetail, LaunchesPage } from '../../lib/launches/schema.js'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { ib20Abi, ROLES } from '../support/b20Token.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'

// The launches feed says, per launch, which roles the service's signer still holds (`powers.signerRoles`), read from
// the chain when the feed's body is made: one eth_call (Multicall3) for every confirmed launch, none for a request the
// cached body answers. On anvil with the B20 emulator, as GET /api/launches/{address} reads them too.

const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const ON = { publicLaunches: true, chainId: 8453 } as const

describe('the launches feed’s powers: the roles the service’s signer still holds (anvil, the B20 emulator)', () => {
  let stack: DeployStack
  let read: ReadServices
  const logs: string[] = []
  const background: Promise<unknown>[] = []
  /** The signer the feed's chain names without KMS (SIGNER_ADDRESS), as a test sets it. */
  let configuredSigner: Address | null = null

  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'memory', env: { DEPLOY_DAILY_CAP: '100' } })
    read = createReadServices({
      env: { STORE_KEY_PREFIX: stack.newInstance().services.config.storePrefix, GECKOTERMINAL_BASE_URL: '' },
      store: stack.store,
      logger: createLogger({ write: (line) => logs.push(line) }),
      now: stack.clock.clock.now,
      gecko: null,
      waitUntil: (work) => void background.push(work),
    })
  })
  afterAll(() => stack?.close())

  /** The feed's chain: the stack's RPC through its counting proxy. */
  const chain = async () => ({ client: createChainClient({ rpcUrl: stack.chain.rpcUrl, chainId: 8453 }), signer: configuredSigner })
  const feed = () => withOpenApiCheck('/api/launches', createLaunchesEndpoint({ read: () => read, config: () => ON, chain }))
  const detail = () =>
    withOpenApiCheck(
      '/api/launches/{address}',
      createLaunchEndpoint({ read: () => read, config: () => ON, chain, deploy: deployServicesFrom(() => stack.newInstance().services) }),
    )
  /** A page of the feed as it is now: past the window, read again once the refresh behind the stale answer landed. */
  async function freshFeed(endpoint = feed()) {
    stack.clock.now += 31_000
    let response = await endpoint(new Request('https://svc.test/api/launches?limit=100'))
    if (response.headers.get('x-data-state') === 'stale') {
      while (background.length > 0) await Promise.allSettled(background.splice(0))
      response = await endpoint(new Request('https://svc.test/api/launches?limit=100'))
    }
    expect(response.status).toBe(200)
    return (await response.json()) as LaunchesPage
  }
  const powersIn = (page: LaunchesPage, address: string) => page.launches.find((l) => l.address === address)?.powers
  /** Sends a call to a token as the signer (impersonated on anvil): what the service could do with the roles it holds. */
  async function asSigner(token: Address, data: Hex) {
    await stack.chain.testClient.impersonateAccount({ address: stack.signer })
    const hash = (await stack.chain.testClient.request({
      method: 'eth_sendTransaction',
      params: [{ from: stack.signer, to: token, data }],
    } as never)) as Hex
    await stack.chain.testClient.stopImpersonatingAccount({ address: stack.signer })
    expect((await stack.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
  }
  /** Every deploy's hash, in order. */
  const sentHashes: Hex[] = []
  const deployed = async (body: Record<string, unknown>) => {
    stack.clock.now += 1000 // one after the other in the feed's order
    const answer = await stack.post({
      action: 'agent_deploy',
      name: `${body.symbol} Token`,
      initialSupply: '1000',
      recipient: ADMIN,
      ...body,
    })
    expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true })
    sentHashes.push(answer.body.txHash as Hex)
    return { address: answer.body.predictedAddress as Address, txHash: answer.body.txHash as Hex }
  }

  it('names the signer’s roles per confirmed launch in one eth_call, null for one not seen mined, nothing per request', async () => {
    const kept = await deployed({ symbol: 'KEPT', waitSeconds: 6 }) // no admin given: the signer is admin and minter
    const handed = await deployed({ symbol: 'HAND', admin: ADMIN, waitSeconds: 6 })
    const sent = await deployed({ symbol: 'SENT', admin: ADMIN }) // no receipt asked: its record says broadcast
    const endpoint = feed()
    const from = stack.chain.rpcMethods.length
    const page = await freshFeed(endpoint)
    expect(page.launches.map((l) => [l.symbol, l.status, l.powers])).toEqual([
      ['SENT', 'broadcast', null],
      ['HAND', 'confirmed', { signerRoles: [] }],
      ['KEPT', 'confirmed', { signerRoles: ['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'] }],
    ])
    // Two confirmed launches, 16 hasRole calls: one eth_call.
    expect(stack.chain.rpcMethods.slice(from)).toEqual(['eth_call'])
    // Every page the window's body answers costs the chain nothing, on this instance or from the shared body on another.
    const first = (await (await endpoint(new Request('https://svc.test/api/launches?limit=1'))).json()) as LaunchesPage
    for (const query of ['?limit=2', '', `?limit=1&cursor=${first.nextCursor}`])
      expect((await endpoint(new Request(`https://svc.test/api/launches${query}`))).status).toBe(200)
    expect((await feed()(new Request('https://svc.test/api/launches'))).status).toBe(200)
    expect(stack.chain.rpcMethods.slice(from)).toEqual(['eth_call'])
    expect(sent.address).not.toBe(handed.address)

    // The service gives up minting on KEPT: GET /api/launches/{address} says so at once, the feed from its next window.
    await asSigner(kept.address, encodeFunctionData({ abi: revokeAbi, functionName: 'revokeRole', args: [ROLES.mint, stack.signer] }))
    const one = await detail()(new Request(`https://svc.test/api/launches/${kept.address}`))
    const body = (await one.json()) as LaunchDetail
    expect(body.powers).toMatchObject({ admins: [stack.signer], minters: [], signerRoles: ['DEFAULT_ADMIN_ROLE'] })
    const later = await freshFeed()
    expect(powersIn(later, kept.address)).toEqual({ signerRoles: body.powers!.signerRoles })
    expect(powersIn(later, handed.address)).toEqual({ signerRoles: [] })
  })

  it('finds the creator of launches recorded before their sender was kept: another record’s sender, or SIGNER_ADDRESS', async () => {
    const old = await deployed({ symbol: 'OLD', waitSeconds: 6 })
    const keys = deployHistoryKeys({ storePrefix: read.keyPrefix, chainId: 8453 })
    /** Rewrites records as an older version kept them: without `from`. */
    const forgetSenders = async (hashes: readonly Hex[]) => {
      for (const hash of hashes) {
        const { from, ...record } = (await readTransactionRecord(stack.store, keys, hash))!
        expect(from).toBe(stack.signer)
        await updateTransactionRecord(stack.store, keys, record)
      }
    }
    await forgetSenders([old.txHash])
    // Other launches name the signer as their sender: the old one's address is derived from it, so it is its creator.
    expect(powersIn(await freshFeed(), old.address)).toEqual({ signerRoles: ['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'] })
    // No record names a sender: unknown, unless the signer is configured (SIGNER_ADDRESS), and then it is.
    await forgetSenders(sentHashes.filter((hash) => hash !== old.txHash))
    expect((await freshFeed()).launches.map((l) => l.powers)).toEqual(sentHashes.map(() => null))
    configuredSigner = stack.signer
    try {
      expect(powersIn(await freshFeed(), old.address)).toEqual({ signerRoles: ['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'] })
    } finally {
      configuredSigner = null
    }
  })

  it('answers the feed with powers null while the chain does not answer, and says so in the log', async () => {
    configuredSigner = stack.signer // the creators known (the records above were made to forget them): a read is due
    expect((await freshFeed()).launches.filter((l) => l.powers !== null)).toHaveLength(3)
    stack.chain.setRpcDown(true)
    try {
      const page = await freshFeed()
      expect(page.launches.length).toBeGreaterThan(2)
      expect(page.launches.every((l) => l.powers === null)).toBe(true)
      expect(logs.some((line) => line.includes('launch_powers_unread'))).toBe(true)
    } finally {
      stack.chain.setRpcDown(false)
      configuredSigner = null
    }
  })

  const revokeAbi = [
    ...ib20Abi,
    {
      type: 'function',
      name: 'revokeRole',
      stateMutability: 'nonpayable',
      inputs: [{ type: 'bytes32' }, { type: 'address' }],
      outputs: [],
    },
  ] as const
})
