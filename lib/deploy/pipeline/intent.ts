import type { Address, Hex } from 'viem'
import type { B20Variant } from '../../chain/b20Variants.js'
import type { TokenMetadata } from '../../chain/tokenBirth.js'
import type { PoolIntent } from '../pool/poolFields.js'

// What the pipeline deploys, as the `agent_deploy` action hands it over once the request is valid
// (`lib/deploy/actions/agentDeploy.ts` reads and checks the body).

/** What an agent asks its token to get at birth, validated: amounts in base units, the recipient resolved. */
export type BirthIntent = {
  /** Minted to `recipient` in the creation transaction, in base units. */
  initialSupply: bigint | undefined
  /** Who receives `initialSupply`: the one given, else the admin. */
  recipient: Address | undefined
  /** The cap from birth, in base units; for a fixed supply, the supply itself. */
  supplyCap: bigint | undefined
  /** No admin and no minter, ever: the token is created with `initialAdmin` = the zero address. */
  fixedSupply: boolean
  /** The ERC-7572 fields to set as `contractURI`; undefined when none is given. */
  metadata: TokenMetadata | undefined
}

/** The longest wait for its block a deploy may ask for (`waitSeconds`): the waiting send's own bound. */
export { DEPLOY_WAIT_SECONDS_MAX } from '../sender/waitSeconds.js'

/** A validated, normalised deploy intent. */
export type DeployIntent = {
  name: string
  symbol: string
  variant: B20Variant
  decimals: number
  /** Checksummed admin; undefined means "the signer". */
  admin: Address | undefined
  /** The salt asked for; undefined means "a random one". */
  salt: Hex | undefined
  /** ISO 4217 code, stablecoins only. */
  currency: string | undefined
  /** Supply, cap and metadata at birth. */
  birth: BirthIntent
  /** A Uniswap v4 pool seeded at launch with part of the initial supply; undefined: none. */
  pool: PoolIntent | undefined
  dryRun: boolean
  /**
   * Seconds (0-6) to wait for the block: above 0 the transaction goes out with `eth_sendRawTransactionSync` and the
   * answer carries its receipt when it is mined in time.
   */
  waitSeconds: number
}
