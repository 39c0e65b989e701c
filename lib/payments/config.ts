import { z } from 'zod'
import type { PaymentAssetFacts } from '../chain/paymentAsset.js'
import type { DeployConfig } from '../deploy/config.js'
import {
  ConfigError,
  type CrossCheck,
  type Environment,
  httpUrl,
  loadPublicOrigin,
  optional,
  parseWith,
  wholeNumber,
} from '../platform/config.js'
import { cdpSecretProblem } from './facilitator/cdpAuth.js'

// The paid door's settings: off unless X402_PRICE, X402_FACILITATOR_URL, a signer and the service's public origin are
// all set. A bad value stops npm start (and answers CONFIG_INVALID on Vercel) with the variable and what is wrong, never
// the value.

/** The EIP-3009 token a chain's paid deploys default to: its USDC and the EIP-712 domain it signs with. */
export const DEFAULT_ASSETS: Readonly<Record<8453 | 84532, { address: `0x${string}`; name: string; version: string }>> = {
  8453: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' },
  84532: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' },
}

/** Most digits a price may have after the point: the most decimals an ERC-20 asset is taken with. */
export const PRICE_DECIMALS_MAX = 18

/**
 * The paid door's settings as the environment gives them. What they are worth in base units depends on the asset's
 * `decimals()`, read from the chain: {@link pricedPaymentsConfig} turns them into a {@link PaymentsConfig}.
 */
export type PaymentsSettings = {
  /** Why paid deploys are off (which variables are missing, never their values); null when they are on. */
  offReason: string | null
  /**
   * The origin the door names itself by, in its 402, its manifest and its receipts: `PUBLIC_URL`, else
   * `https://$VERCEL_PROJECT_PRODUCTION_URL` (npm start sets `PUBLIC_URL` to where it listens when neither is set). Never
   * a request's Host, which a client writes. Null (and paid deploys off) when neither is set.
   */
  publicOrigin: string | null
  /** The price per deploy as the operator wrote it, in whole tokens (`"1.00"`). */
  price: string
  /** The price of a pooled launch (`pool` in the body: four transactions, more gas), `X402_POOL_PRICE`, else `price`. */
  poolPrice: string
  facilitatorUrl: string
  /** Who is paid: `X402_PAY_TO`, else `SIGNER_ADDRESS` (the 402 names it without asking KMS). */
  payTo: `0x${string}`
  /** The EIP-3009 token paid in, and its EIP-712 domain as configured. */
  asset: { address: `0x${string}`; name: string; version: string }
  /** CAIP-2 network of the chain: `eip155:8453`. */
  network: `eip155:${number}`
  chainId: 8453 | 84532
  /** Paid deploys allowed in any rolling window, service-wide (`X402_DAILY_CAP`) and per payer (`X402_PAYER_DAILY_CAP`). */
  dailyCap: number
  payerDailyCap: number
  /** The rolling window of both caps: `DEPLOY_CAP_WINDOW_SECONDS`. */
  capWindowSeconds: number
  /** Requests a client may send the door per minute (`X402_RATE_LIMIT_PER_MINUTE`). */
  rateLimitPerMinute: number
  /** Credentials of Coinbase's hosted facilitator (CDP), or null for a facilitator that needs none. */
  cdp: { keyId: string; secret: string } | null
  storePrefix: string
}

/** The paid door's configuration, checked against the asset on chain: what a 402 asks and a payment must pay. */
export type PaymentsConfig = Omit<PaymentsSettings, 'asset'> & {
  /** The price in the asset's base units, as x402's `amount` says it (`"1000000"` for 1.00 at 6 decimals). */
  amount: string
  /** A pooled launch's price in base units. */
  poolAmount: string
  /**
   * The part of this deploy's price that pays for its pool, in base units: a pooled launch's price less a plain
   * deploy's (`"0"` for a plain deploy). Credited back to the payer when the pool fails.
   */
  poolPart: string
  /** The EIP-3009 token paid in, its EIP-712 domain (checked against the token) and its `decimals()`. */
  asset: PaymentsSettings['asset'] & { decimals: number }
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address (40 hex digits)')

const priceRule = `must be a price in whole tokens with at most ${PRICE_DECIMALS_MAX} decimals, more than 0 (like "1.00")`

const priceField = z
  .string()
  .trim()
  .refine((v) => new RegExp(`^\\d{1,12}(\\.\\d{1,${PRICE_DECIMALS_MAX}})?$`).test(v) && /[1-9]/.test(v), priceRule)

const paymentsSchema = z.object({
  X402_PRICE: optional(priceField),
  X402_POOL_PRICE: optional(priceField),
  X402_FACILITATOR_URL: optional(httpUrl),
  X402_PAY_TO: optional(address),
  X402_ASSET: optional(address),
  X402_ASSET_NAME: optional(z.string().trim().max(64, 'must be at most 64 characters')),
  X402_ASSET_VERSION: optional(z.string().trim().max(16, 'must be at most 16 characters')),
  X402_DAILY_CAP: optional(wholeNumber(0)).default(100),
  X402_PAYER_DAILY_CAP: optional(wholeNumber(0)).default(5),
  X402_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(30),
  CDP_API_KEY_ID: optional(z.string().trim()),
  CDP_API_KEY_SECRET: optional(z.string()),
})

/** Another asset than the chain's USDC needs its EIP-712 domain; CDP's key id and secret come together. */
const checkPairs: CrossCheck = (env) => {
  const problems: string[] = []
  const usdc = [DEFAULT_ASSETS[8453].address, DEFAULT_ASSETS[84532].address].map((a) => a.toLowerCase())
  if (env.X402_ASSET && !usdc.includes(env.X402_ASSET.toLowerCase()))
    for (const name of ['X402_ASSET_NAME', 'X402_ASSET_VERSION'])
      if (!env[name]) problems.push(`${name}: is required when X402_ASSET names another token than the chain's USDC (its EIP-712 domain)`)
  if (env.CDP_API_KEY_ID && !env.CDP_API_KEY_SECRET) problems.push('CDP_API_KEY_SECRET: is required when CDP_API_KEY_ID is set')
  if (!env.CDP_API_KEY_ID && env.CDP_API_KEY_SECRET) problems.push('CDP_API_KEY_ID: is required when CDP_API_KEY_SECRET is set')
  const secretProblem = env.CDP_API_KEY_SECRET ? cdpSecretProblem(env.CDP_API_KEY_SECRET) : null
  if (secretProblem) problems.push(`CDP_API_KEY_SECRET: ${secretProblem}`)
  // The 402 must name who is paid without a KMS call: the signer's address comes from SIGNER_ADDRESS then.
  if (env.X402_PRICE && env.X402_FACILITATOR_URL && env.KMS_KEY_ID && !env.X402_PAY_TO && !env.SIGNER_ADDRESS)
    problems.push('X402_PAY_TO: is required when paid deploys are on and SIGNER_ADDRESS is not set (who is paid, named without asking KMS)')
  return problems
}

/** The price in base units (pure): `"1.5"` -> `"1500000"` at 6 decimals. */
export function baseUnitsOf(price: string, decimals: number): string {
  const [whole, fraction = ''] = price.split('.')
  return (BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')).toString()
}

/**
 * Parses the paid door's settings from the environment, over the deploy settings it shares (chain, signer, store, cap
 * window); throws a `ConfigError` naming every problem. The asset's own terms are checked on chain later.
 */
export function loadPaymentsConfig(env: Environment, deploy: DeployConfig): PaymentsSettings {
  const parsed = parseWith(paymentsSchema, env, 'paid deploys (x402)', [checkPairs])
  const publicOrigin = loadPublicOrigin(env)
  const missing = [
    parsed.X402_PRICE ? null : 'X402_PRICE',
    parsed.X402_FACILITATOR_URL ? null : 'X402_FACILITATOR_URL',
    deploy.kmsKeyId ? null : 'KMS_KEY_ID',
    publicOrigin ? null : 'PUBLIC_URL',
  ].filter((name) => name !== null)
  const usdc = DEFAULT_ASSETS[deploy.chainId]
  const assetAddress = (parsed.X402_ASSET ?? usdc.address) as `0x${string}`
  const isUsdc = assetAddress.toLowerCase() === usdc.address.toLowerCase()
  const price = parsed.X402_PRICE ?? '0'
  return {
    offReason: missing.length > 0 ? `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set` : null,
    publicOrigin,
    price,
    poolPrice: parsed.X402_POOL_PRICE ?? price,
    facilitatorUrl: parsed.X402_FACILITATOR_URL ?? '',
    payTo: (parsed.X402_PAY_TO ?? deploy.signerAddress ?? '0x0000000000000000000000000000000000000000') as `0x${string}`,
    asset: {
      address: assetAddress,
      name: parsed.X402_ASSET_NAME ?? (isUsdc ? usdc.name : ''),
      version: parsed.X402_ASSET_VERSION ?? (isUsdc ? usdc.version : ''),
    },
    network: `eip155:${deploy.chainId}`,
    chainId: deploy.chainId,
    dailyCap: parsed.X402_DAILY_CAP,
    payerDailyCap: parsed.X402_PAYER_DAILY_CAP,
    capWindowSeconds: deploy.capWindowSeconds,
    rateLimitPerMinute: parsed.X402_RATE_LIMIT_PER_MINUTE,
    cdp: parsed.CDP_API_KEY_ID && parsed.CDP_API_KEY_SECRET ? { keyId: parsed.CDP_API_KEY_ID, secret: parsed.CDP_API_KEY_SECRET } : null,
    storePrefix: deploy.storePrefix,
  }
}

/** What the asset says of itself on chain, as {@link pricedPaymentsConfig} checks the settings against it. */
export type AssetOnChain = Pick<PaymentAssetFacts, 'decimals'> & {
  /** Which parts of the configured EIP-712 domain the token contradicts (`eip712DomainProblems`). */
  domainProblems: readonly ('name' | 'version')[]
}

/**
 * The settings checked against the asset on chain (pure): the price in its base units at its own `decimals()`, and
 * its EIP-712 domain as configured. Throws a `ConfigError` naming each setting the token contradicts: no token
 * answers `decimals()` at `X402_ASSET`, a price with more digits than the token has, or a domain it does not sign with.
 * A wrong price or a domain every payment would fail under is never offered.
 */
export function pricedPaymentsConfig(settings: PaymentsSettings, onChain: AssetOnChain): PaymentsConfig {
  const { decimals, domainProblems } = onChain
  const problems: string[] = []
  const where = `${settings.asset.address} on chain ${settings.chainId}`
  if (decimals === null) problems.push(`X402_ASSET: no token at ${where} answers decimals() (is it the chain's EIP-3009 token?)`)
  else
    for (const [name, price] of [
      ['X402_PRICE', settings.price],
      ['X402_POOL_PRICE', settings.poolPrice],
    ] as const)
      if ((price.split('.')[1] ?? '').length > decimals)
        problems.push(`${name}: has more digits after the point than the asset's ${decimals} decimals`)
  for (const part of domainProblems)
    problems.push(
      `X402_ASSET_${part.toUpperCase()}: is not the EIP-712 ${part} the token at ${where} signs with (its name() / version() / DOMAIN_SEPARATOR() say otherwise)`,
    )
  if (problems.length > 0 || decimals === null) throw new ConfigError(`Invalid paid deploys (x402) configuration: ${problems.join('; ')}`)
  return {
    ...settings,
    amount: baseUnitsOf(settings.price, decimals),
    poolPart: '0',
    poolAmount: baseUnitsOf(settings.poolPrice, decimals),
    asset: { ...settings.asset, decimals },
  }
}

/** The door's terms for one deploy: a pooled launch is sold at its own price (`X402_POOL_PRICE`), everything else as configured. */
export function termsFor(config: PaymentsConfig, pooled: boolean): PaymentsConfig {
  if (!pooled) return config
  const part = BigInt(config.poolAmount) - BigInt(config.amount)
  return { ...config, price: config.poolPrice, amount: config.poolAmount, poolPart: (part > 0n ? part : 0n).toString() }
}
