import { type Address, formatUnits, type Hex, zeroAddress } from 'viem'
import { B20_FACTORY_ADDRESS, type B20TokenSpec, encodeCreateB20, predictB20Address } from '../../chain/b20.js'
import { encodeExecuteBatch } from '../../chain/batchAccount.js'
import { encodeBirthInitCalls, metadataDataUri } from '../../chain/tokenBirth.js'
import type { DeployedToken } from '../answers/answerFields.js'
import { type DeployResult, invalidRequest } from '../outcome.js'
import type { UniswapV4Addresses } from '../pool/addresses.js'
import { type LaunchPool, planLaunchPool } from '../pool/launchPool.js'
import { type MarketCapBounds, poolOwnerProblem } from '../pool/poolFields.js'
import type { DeployIntent } from './intent.js'

/** What a deploy sends, worked out before any I/O: the factory call, the address it creates and the token. */
export type DeployPlan = {
  /** Calldata of `createB20`. */
  data: Hex
  predictedAddress: Address
  token: DeployedToken
  /**
   * The transaction's call as the node simulates and estimates it, from the signer: `createB20` to the factory, or a
   * pooled launch's one `executeBatch` the signer sends to itself (its EIP-7702 delegate runs it).
   */
  request: { account: Address; to: Address; data: Hex; value: 0n }
  /** A pooled launch's pool: the signer is minted its share at birth and seeds it in the same batch. */
  pool?: LaunchPool
}

/** Parameters of {@link planDeploy}. */
export type PlanDeployParameters = {
  intent: DeployIntent
  signer: Address
  salt: Hex
  /** The launch's pool, planned for this token's address (`planLaunchPool`); absent: no pool. */
  pool?: LaunchPool
}

/**
 * Plans a deploy (pure): the admin defaults to the pool's owner when there is a pool, else to the signer (and a fixed
 * supply has none), a stablecoin's currency to
 * USD. The initCalls make the admin the minter, then set the cap, mint and set the metadata; a deploy with none of the
 * birth fields sends `[grantRole(MINT_ROLE, admin)]` alone, as it always has. The birth is encoded once; the answer's
 * token is said from the intent (records read it back from their calldata with `birthViewOf`, which agrees).
 */
export function planDeploy({ intent, signer, salt, pool }: PlanDeployParameters): DeployPlan {
  const { birth } = intent
  // A pooled token's admin is never the signer by default: whoever held the signer could mint into the pool.
  const admin = birth.fixedSupply ? zeroAddress : (intent.admin ?? intent.pool?.owner ?? signer)
  const spec: B20TokenSpec =
    intent.variant === 'asset'
      ? { variant: 'asset', name: intent.name, symbol: intent.symbol, admin, decimals: intent.decimals }
      : { variant: 'stablecoin', name: intent.name, symbol: intent.symbol, admin, currency: intent.currency ?? 'USD' }
  const mint = birth.initialSupply !== undefined && birth.recipient ? { to: birth.recipient, units: birth.initialSupply } : undefined
  // A pooled launch mints the pool's share to the signer, who seeds the pool with exactly that in the same batch; the
  // rest goes to the recipient, so the signer holds nothing once the pool is seeded. With the whole supply in the pool
  // the rest is 0: B20 takes `mint(recipient, 0)` as a no-op that still logs a Transfer of 0 (base-std's
  // test_mint_success_zeroAmount pins it), so it is not sent at all and nobody is named the recipient.
  const poolMint = pool && mint ? { to: signer, units: pool.seed.taken } : undefined
  const rest = mint && poolMint ? { to: mint.to, units: mint.units - poolMint.units } : mint
  const recipientMint = rest && rest.units === 0n && poolMint ? undefined : rest
  const initCalls = encodeBirthInitCalls({
    minter: birth.fixedSupply ? null : admin,
    supplyCap: birth.supplyCap,
    poolMint,
    mint: recipientMint,
    contractUri: birth.metadata ? metadataDataUri({ name: intent.name, symbol: intent.symbol, ...birth.metadata }) : undefined,
  })
  const whole = (units: bigint | undefined) => (units === undefined ? null : formatUnits(units, intent.decimals))
  const data = encodeCreateB20(spec, salt, initCalls)
  const launch = poolMint && pool ? pool : undefined
  // A pooled launch is one transaction from the signer to itself: the creation, then the pool's calls, in one batch.
  const request = launch
    ? {
        account: signer,
        to: signer,
        data: encodeExecuteBatch([{ target: B20_FACTORY_ADDRESS, value: 0n, data }, ...launch.calls]),
        value: 0n as const,
      }
    : { account: signer, to: B20_FACTORY_ADDRESS, data, value: 0n as const }
  return {
    data,
    predictedAddress: predictB20Address(intent.variant, signer, salt),
    token: {
      name: intent.name,
      symbol: intent.symbol,
      variant: intent.variant,
      decimals: intent.decimals,
      admin: birth.fixedSupply ? null : admin,
      minter: birth.fixedSupply ? null : admin,
      initialSupply: whole(mint?.units),
      supplyCap: whole(birth.supplyCap),
      recipient: recipientMint?.to ?? null,
      metadata: birth.metadata ?? null,
    },
    request,
    ...(launch ? { pool: launch } : {}),
  }
}

/** Parameters of {@link planLaunch}. */
export type PlanLaunchParameters = PlanDeployParameters & {
  /** Where a pool is made. */
  addresses: UniswapV4Addresses
  /** The starting market caps a pool may ask for. */
  marketCap: MarketCapBounds
  /** Unix seconds now: a pool seed's deadline counts from it. */
  nowSeconds: number
}

/**
 * Plans a deploy with its pool when the intent asks for one (pure): neither the pool's owner nor the token's admin may
 * be the signer (the service keeps no position and no role on a pooled token), and the seed must be possible at this
 * price and amount; each refusal is `INVALID_INTENT` naming its field.
 */
export function planLaunch(parameters: PlanLaunchParameters): DeployResult<{ plan: DeployPlan }> {
  const { intent, signer, salt, addresses, marketCap, nowSeconds } = parameters
  if (!intent.pool) return { ok: true, plan: planDeploy({ intent, signer, salt }) }
  const invalid = (details: { field: string; reason: string }[]) => invalidRequest('agent_deploy', details)
  const ownerProblem = poolOwnerProblem(intent.pool.owner, signer)
  if (ownerProblem) return invalid([ownerProblem])
  if (intent.admin && intent.admin.toLowerCase() === signer.toLowerCase())
    return invalid([
      {
        field: 'admin',
        reason:
          'must not be the service’s signer on a token with a pool: the signer keeps no role on a pooled token (omit admin: it defaults to pool.owner)',
      },
    ])
  const token = predictB20Address(intent.variant, signer, salt)
  const pool = planLaunchPool({ pool: intent.pool, token, decimals: intent.decimals, addresses, marketCap, nowSeconds })
  if (!pool.ok) return invalid(pool.details)
  return { ok: true, plan: planDeploy({ intent, signer, salt, pool: pool.launch }) }
}
