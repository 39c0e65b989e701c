import type { Address } from 'viem'
import { z } from 'zod'
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '../chain/delegate.js'
import { parseTokenAmount } from '../chain/tokenAmount.js'
import {
  type CrossCheck,
  checkStorePairs,
  type Environment,
  httpUrl,
  optional,
  parseWith,
  storeConfig,
  storeFields,
  wholeNumber,
} from '../platform/config.js'
import { BASE_UNISWAP_V4, type UniswapV4Addresses } from './pool/addresses.js'
import type { MarketCapBounds } from './pool/poolFields.js'

/** Configuration of the deploy endpoint. */
export type DeployConfig = {
  /** SHA-256 hex digests of the agent keys that may deploy. */
  allowlist: string[]
  /** KMS key id or ARN; null when no signer is configured. */
  kmsKeyId: string | null
  awsRegion: string | null
  /**
   * IAM role the KMS client assumes with Vercel's OIDC token (`AWS_ROLE_ARN`), used only when no static access key is
   * set (`AWS_ACCESS_KEY_ID`): then the service holds no long-lived AWS secret. Null: the SDK's default chain.
   */
  awsRoleArn: string | null
  /** Address the KMS key must have, when set. */
  signerAddress: `0x${string}` | null
  rpcUrl: string
  chainId: 8453 | 84532
  explorerUrl: string
  dailyCap: number
  capWindowSeconds: number
  agentDailyCap: number | null
  /** Actions on a token the service may execute for one agent in any cap window (they spend the service's gas). */
  tokenActionCap: number
  /** Seconds a deploy may stay unmined before the next deploy replaces it with higher fees (`DEPLOY_STUCK_SECONDS`). */
  stuckSeconds: number
  /** Highest `maxFeePerGas` a replacement may offer, in wei (`DEPLOY_MAX_FEE_GWEI`). */
  maxFeePerGasWei: bigint
  /** Upstash REST endpoint and token, or null for the in-process store. */
  redis: { url: string; token: string } | null
  storePrefix: string
  /** True on Vercel: deploys then need the shared store, since instances cannot share a lock in memory. */
  onVercel: boolean
  /** Uniswap v4 and Permit2 (`UNISWAP_V4_POOL_MANAGER`, `UNISWAP_V4_POSITION_MANAGER`, `UNISWAP_V4_STATE_VIEW`, `PERMIT2_ADDRESS`); Base's by default. */
  uniswapV4: UniswapV4Addresses
  /**
   * The starting market caps a pooled launch may ask for, in wei (`POOL_MIN_MARKET_CAP_ETH`, `POOL_MAX_MARKET_CAP_ETH`;
   * 1 and 1,000,000 ETH by default): outside them the request is refused, naming `pool.startingMarketCapEth`.
   */
  poolMarketCap: MarketCapBounds
  /**
   * The batch executor the signer's EIP-7702 delegation points at (`EIP7702_DELEGATE`, default Simple7702Account v0.8
   * on Base): a pooled launch is one `executeBatch` the signer sends to itself.
   */
  delegate: Address
}

const contractAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address')

const checkKmsRegion: CrossCheck = (env) =>
  env.KMS_KEY_ID && !env.AWS_REGION && !env.AWS_DEFAULT_REGION ? ['AWS_REGION: is required when KMS_KEY_ID is set'] : []

/** The default bounds of a pooled launch's starting market cap, in ETH. */
const POOL_MARKET_CAP_ETH_DEFAULTS = { min: '1', max: '1000000' } as const

/** An amount of ETH as a decimal string (at most 18 digits after the point), above 0. */
const ethAmount = z.string().refine((text) => {
  const read = parseTokenAmount(text.trim(), 18)
  return read.ok && read.units > 0n
}, 'must be an amount of ETH above 0, like "1" or "0.5"')

const checkPoolMarketCap: CrossCheck = (env) => {
  const weiOf = (text: string | undefined, fallback: string) => {
    const read = parseTokenAmount((text ?? fallback).trim(), 18)
    return read.ok ? read.units : null
  }
  const min = weiOf(env.POOL_MIN_MARKET_CAP_ETH, POOL_MARKET_CAP_ETH_DEFAULTS.min)
  const max = weiOf(env.POOL_MAX_MARKET_CAP_ETH, POOL_MARKET_CAP_ETH_DEFAULTS.max)
  return min !== null && max !== null && min > max ? ['POOL_MIN_MARKET_CAP_ETH: must not be above POOL_MAX_MARKET_CAP_ETH'] : []
}

const deploySchema = z.object({
  DEPLOY_ALLOWLIST: optional(z.string()).transform((v, ctx) => {
    const entries = (v ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    entries.forEach((entry, i) => {
      if (!/^[0-9a-f]{64}$/.test(entry))
        ctx.addIssue({
          code: 'custom',
          message: `entry ${i + 1} is not a lower-case hex SHA-256 digest (64 characters); list digests, never keys`,
        })
    })
    return entries
  }),
  KMS_KEY_ID: optional(z.string().trim()),
  AWS_REGION: optional(z.string().trim()),
  AWS_DEFAULT_REGION: optional(z.string().trim()),
  AWS_ROLE_ARN: optional(
    z
      .string()
      .trim()
      .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, 'must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)'),
  ),
  AWS_ACCESS_KEY_ID: optional(z.string()),
  SIGNER_ADDRESS: optional(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address')),
  BASE_RPC_URL: optional(httpUrl).default('https://mainnet.base.org'),
  CHAIN_ID: optional(z.enum(['8453', '84532'], { error: 'must be 8453 (Base) or 84532 (Base Sepolia, staging)' })).default('8453'),
  EXPLORER_URL: optional(httpUrl),
  DEPLOY_DAILY_CAP: optional(wholeNumber(0)).default(20),
  DEPLOY_CAP_WINDOW_SECONDS: optional(wholeNumber(1)).default(86_400),
  DEPLOY_AGENT_DAILY_CAP: optional(wholeNumber(0)),
  TOKEN_ACTION_DAILY_CAP: optional(wholeNumber(0)).default(50),
  DEPLOY_STUCK_SECONDS: optional(wholeNumber(1)).default(60),
  DEPLOY_MAX_FEE_GWEI: optional(
    z.coerce.number({ error: 'must be a number of gwei' }).positive('must be more than 0').max(10_000, 'must be at most 10000'),
  ).default(5),
  VERCEL: optional(z.string()),
  UNISWAP_V4_POOL_MANAGER: optional(contractAddress).default(BASE_UNISWAP_V4.poolManager),
  UNISWAP_V4_POSITION_MANAGER: optional(contractAddress).default(BASE_UNISWAP_V4.positionManager),
  UNISWAP_V4_STATE_VIEW: optional(contractAddress).default(BASE_UNISWAP_V4.stateView),
  PERMIT2_ADDRESS: optional(contractAddress).default(BASE_UNISWAP_V4.permit2),
  EIP7702_DELEGATE: optional(contractAddress).default(SIMPLE_7702_ACCOUNT_ADDRESS),
  POOL_MIN_MARKET_CAP_ETH: optional(ethAmount).default(POOL_MARKET_CAP_ETH_DEFAULTS.min),
  POOL_MAX_MARKET_CAP_ETH: optional(ethAmount).default(POOL_MARKET_CAP_ETH_DEFAULTS.max),
  ...storeFields,
})

/** Parses the deploy endpoint's configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadDeployConfig(env: Environment = process.env): DeployConfig {
  const parsed = parseWith(deploySchema, env, 'deploy', [checkStorePairs, checkKmsRegion, checkPoolMarketCap])
  const chainId = Number(parsed.CHAIN_ID) as 8453 | 84532
  return {
    allowlist: parsed.DEPLOY_ALLOWLIST,
    kmsKeyId: parsed.KMS_KEY_ID ?? null,
    awsRegion: parsed.AWS_REGION ?? parsed.AWS_DEFAULT_REGION ?? null,
    // A static key wins: it is the fallback an operator set on purpose.
    awsRoleArn: parsed.AWS_ACCESS_KEY_ID ? null : (parsed.AWS_ROLE_ARN ?? null),
    signerAddress: (parsed.SIGNER_ADDRESS as `0x${string}` | undefined) ?? null,
    rpcUrl: parsed.BASE_RPC_URL,
    chainId,
    explorerUrl: (parsed.EXPLORER_URL ?? (chainId === 84532 ? 'https://sepolia.basescan.org' : 'https://basescan.org')).replace(/\/+$/, ''),
    dailyCap: parsed.DEPLOY_DAILY_CAP,
    capWindowSeconds: parsed.DEPLOY_CAP_WINDOW_SECONDS,
    agentDailyCap: parsed.DEPLOY_AGENT_DAILY_CAP ?? null,
    tokenActionCap: parsed.TOKEN_ACTION_DAILY_CAP,
    stuckSeconds: parsed.DEPLOY_STUCK_SECONDS,
    maxFeePerGasWei: BigInt(Math.round(parsed.DEPLOY_MAX_FEE_GWEI * 1e9)),
    redis: storeConfig(parsed),
    storePrefix: parsed.STORE_KEY_PREFIX,
    onVercel: Boolean(parsed.VERCEL),
    uniswapV4: {
      poolManager: parsed.UNISWAP_V4_POOL_MANAGER as Address,
      positionManager: parsed.UNISWAP_V4_POSITION_MANAGER as Address,
      stateView: parsed.UNISWAP_V4_STATE_VIEW as Address,
      permit2: parsed.PERMIT2_ADDRESS as Address,
    },
    poolMarketCap: { minWei: weiOfEth(parsed.POOL_MIN_MARKET_CAP_ETH), maxWei: weiOfEth(parsed.POOL_MAX_MARKET_CAP_ETH) },
    delegate: parsed.EIP7702_DELEGATE as Address,
  }
}

/** Wei of an amount of ETH the schema has checked. */
function weiOfEth(text: string): bigint {
  const read = parseTokenAmount(text.trim(), 18)
  return read.ok ? read.units : 0n
}
