import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type LocalFacilitator, startLocalFacilitator } from './facilitator.js'
import { type ServiceParts, startServiceParts } from './serviceParts.js'
import { placeTestUsdc, type TestUsdc } from './testUsdc.js'
import { deployUniswapV4 } from './uniswapV4.js'

// Everything the paid door talks to: the service's parts (store, chain, KMS, upstream), the test chain's USDC at Base's
// USDC address, and the local facilitator; with the environment that turns the door on.

/** The price of a paid deploy in these tests, in USDC (at most $1: the x402 client's default cap pays it as it is). */
export const TEST_PRICE = '0.50'
/** {@link TEST_PRICE} in base units. */
export const TEST_PRICE_UNITS = 500_000n
/** The price of a pooled launch in these tests (`X402_POOL_PRICE`), and in base units. */
export const TEST_POOL_PRICE = '0.75'
export const TEST_POOL_PRICE_UNITS = 750_000n

/** The paid door's parts and environment. */
export type PaidDoorParts = ServiceParts & {
  usdc: TestUsdc
  facilitator: LocalFacilitator
  /** Who is paid (`X402_PAY_TO`): an address nobody else uses, so its balance says what was paid. */
  payTo: Address
  /** An allowlisted agent key. */
  agent: { key: string; digest: string }
  /** The CDP credentials the door sends the facilitator (a generated EC key): never in a log line or an answer. */
  cdpSecret: string
}

/** Parameters of {@link startPaidDoorParts}. */
export type StartPaidDoorPartsParameters = { redisSocket: string; storePrefix: string; env?: Record<string, string> }

/** Starts the parts, places the USDC and the facilitator, and says how the door is configured. */
export async function startPaidDoorParts({ redisSocket, storePrefix, env = {} }: StartPaidDoorPartsParameters): Promise<PaidDoorParts> {
  const agent = generateAgentKey()
  const { generateKeyPairSync } = await import('node:crypto')
  const cdpSecret = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const payTo = privateKeyToAddress(generatePrivateKey())
  const parts = await startServiceParts({ redisSocket, allowlist: [agent.digest], storePrefix })
  const [usdc, facilitator, v4] = await Promise.all([
    placeTestUsdc({ chain: parts.chain }),
    startLocalFacilitator({ rpcUrl: parts.chain.nodeUrl }),
    deployUniswapV4(parts.chain),
  ])
  Object.assign(parts.env, {
    // The origin the door names itself by (a target served over HTTP may name its own: npm start's listening address).
    PUBLIC_URL: 'https://paid-door.test',
    X402_PRICE: TEST_PRICE,
    X402_POOL_PRICE: TEST_POOL_PRICE,
    UNISWAP_V4_POOL_MANAGER: v4.poolManager,
    UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
    UNISWAP_V4_STATE_VIEW: v4.stateView,
    PERMIT2_ADDRESS: v4.permit2,
    X402_FACILITATOR_URL: facilitator.url,
    X402_PAY_TO: payTo,
    X402_PAYER_DAILY_CAP: '3',
    X402_RATE_LIMIT_PER_MINUTE: '1000',
    CDP_API_KEY_ID: 'organizations/test/apiKeys/paid-door',
    CDP_API_KEY_SECRET: cdpSecret,
    ...env,
  })
  const close = parts.close
  return {
    ...parts,
    usdc,
    facilitator,
    payTo,
    agent,
    cdpSecret,
    close: async () => {
      await facilitator.close()
      await close()
    },
  }
}

/** A fresh payer's key, funded with `units` of the test USDC. */
export async function fundedPayer(parts: PaidDoorParts, units: bigint = 10n * TEST_PRICE_UNITS): Promise<Hex> {
  const key = generatePrivateKey()
  if (units > 0n) await parts.usdc.mint(privateKeyToAddress(key), units)
  return key
}
