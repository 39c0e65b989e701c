import type { Hex } from 'viem'
import { z } from 'zod'
import { checksumAddress } from '../../chain/address.js'
import { type B20Variant, STABLECOIN_DECIMALS } from '../../chain/b20Variants.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { problemsOf, type RequestProblem } from '../../platform/problems.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { deployBroadcastSchema, deploySimulatedSchema } from '../answers/deployAnswers.js'
import { invalidRequest } from '../outcome.js'
import { DEPLOY_WAIT_SECONDS_MAX, type DeployIntent } from '../pipeline/intent.js'
import { parsePoolIntent, poolFieldSchema } from '../pool/poolFields.js'
import { answer, defineAgentAction } from './action.js'
import { parseBirthIntent } from './birthFields.js'
import { ISO_4217_CODES } from './iso4217.js'
import { addressField, httpsUrlField, onChainTextField, tokenAmountField, waitSecondsField } from './requestFields.js'

// `agent_deploy`: validate, simulate, sign with KMS and broadcast a B20 token (dryRun: validate and simulate only).

/** Longest token name accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_NAME_MAX = 64
/** Longest token symbol accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_SYMBOL_MAX = 11
/** Longest token description accepted (`docs/api.md`, `POST /api/b20-skill`). */
export const DEPLOY_DESCRIPTION_MAX = 500

/** Rules of an `Idempotency-Key` header: 1 to 128 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/

/** The `agent_deploy` body schema: every rule of `docs/api.md` (`POST /api/b20-skill`), with the reasons agents see. */
export const agentDeploySchema = z.strictObject({
  action: z.literal('agent_deploy'),
  name: onChainTextField(DEPLOY_NAME_MAX, 'is required: a string of 1 to 64 characters').describe(
    'Token name: 1-64 characters, no leading or trailing space, no control, zero-width or bidi characters',
  ),
  symbol: z
    .string({ error: 'is required: 1 to 11 letters or digits' })
    .regex(/^[A-Za-z0-9]{1,11}$/, `must be 1 to ${DEPLOY_SYMBOL_MAX} letters (A-Z, a-z) or digits`)
    .describe('Ticker: 1-11 letters or digits'),
  variant: z.enum(['asset', 'stablecoin'], { error: 'must be "asset" or "stablecoin"' }).optional().describe('Default "asset"'),
  decimals: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .optional()
    .describe('6 to 18 for an asset (default 18); a stablecoin always has 6'),
  admin: addressField
    .optional()
    .describe('Admin and mint-role holder; default pool.owner with a pool, else the signer (given: the signer keeps no role)'),
  salt: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex (66 characters)')
    .optional()
    .describe('CREATE2-style salt; random when omitted; reusing one reverts TokenAlreadyExists'),
  currency: z.string().optional().describe('Stablecoin only: an ISO 4217 code of three upper-case letters; default "USD"'),
  initialSupply: tokenAmountField
    .optional()
    .describe(
      'Whole tokens minted to recipient in the creation transaction, as a decimal string ("1000000", "12.5"): more than 0, at most `decimals` digits after the point, at most 2^128-1 base units',
    )
    .meta({ examples: ['1000000'] }),
  recipient: addressField
    .optional()
    .describe('Who receives initialSupply; default admin. Required with initialSupply when admin is not given')
    .meta({ examples: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'] }),
  supplyCap: tokenAmountField
    .optional()
    .describe('The token’s cap from birth, in whole tokens, at least initialSupply; default no cap (type(uint128).max)')
    .meta({ examples: ['10000000'] }),
  fixedSupply: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe(
      'true: the cap is initialSupply and the token has no admin and no minter, ever. Needs initialSupply and recipient; excludes supplyCap and admin',
    )
    .meta({ examples: [true] }),
  description: onChainTextField(DEPLOY_DESCRIPTION_MAX, `must be a string of 1 to ${DEPLOY_DESCRIPTION_MAX} characters`)
    .optional()
    .describe('Set on chain in the token’s ERC-7572 contractURI: 1-500 characters, the same text rules as name')
    .meta({ examples: ['The points token of the Example community.'] }),
  image: httpsUrlField
    .optional()
    .describe('ERC-7572 image: an https URL (at most 512 characters, no user name or password)')
    .meta({ examples: ['https://example.com/token.png'] }),
  website: httpsUrlField
    .optional()
    .describe('ERC-7572 external_link: an https URL (at most 512 characters, no user name or password)')
    .meta({ examples: ['https://example.com'] }),
  pool: poolFieldSchema
    .optional()
    .describe(
      'A Uniswap v4 pool (native ETH, no hook) seeded at launch with `amount` of initialSupply, single-sided from the starting price; `owner` gets the position (an ERC-721) and its fees, and can withdraw the liquidity: nothing is locked',
    ),
  dryRun: z.boolean({ error: 'must be true or false' }).optional().describe('true: validate and simulate only; nothing is signed'),
  waitSeconds: waitSecondsField(DEPLOY_WAIT_SECONDS_MAX)
    .optional()
    .describe(
      `Wait up to this many seconds (0-${DEPLOY_WAIT_SECONDS_MAX}, default 0) for the block: when it is mined in time, the answer adds receipt (tokenAddress, blockNumber, minted); otherwise it is the usual broadcast answer. The signer is never held while waiting`,
    ),
})

/** Result of {@link parseDeployIntent}. */
export type ParseDeployIntentReturnType = Result<{ intent: DeployIntent }, 'INVALID_INTENT', { details: RequestProblem[] }>

/** An asset's decimals when given and valid (6-18), else the default 18: what amounts are checked against. */
const validAssetDecimals = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 6 && value <= 18 ? value : 18

/** Validates an `agent_deploy` body and lists every problem (field and reason); unknown fields are problems too. */
export function parseDeployIntent(body: unknown): ParseDeployIntentReturnType {
  const parsed = agentDeploySchema.safeParse(body)
  // The pool's problems are listed once, by parsePoolIntent below (it reads them against the birth fields too).
  const details: RequestProblem[] = parsed.success
    ? []
    : problemsOf(new z.ZodError(parsed.error.issues.filter((issue) => issue.path[0] !== 'pool')))
  // Rules that depend on the variant are checked even when other fields failed, so one answer lists everything.
  const raw = (body ?? {}) as Record<string, unknown>
  const variant: B20Variant = raw.variant === 'stablecoin' ? 'stablecoin' : 'asset'
  if (variant === 'asset') {
    if (typeof raw.decimals === 'number' && Number.isInteger(raw.decimals) && (raw.decimals < 6 || raw.decimals > 18)) {
      details.push({ field: 'decimals', reason: 'must be between 6 and 18 for an asset' })
    }
    if (raw.currency !== undefined) details.push({ field: 'currency', reason: 'applies only to variant "stablecoin"' })
  } else if (raw.currency !== undefined) {
    if (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency)) {
      details.push({ field: 'currency', reason: 'must be three upper-case letters (ISO 4217), e.g. "USD"' })
    } else if (!ISO_4217_CODES.has(raw.currency)) {
      details.push({ field: 'currency', reason: `"${raw.currency}" is not an ISO 4217 currency code` })
    }
  }
  const decimals = variant === 'stablecoin' ? STABLECOIN_DECIMALS : validAssetDecimals(raw.decimals)
  const { birth, details: birthDetails } = parseBirthIntent(raw, decimals)
  details.push(...birthDetails)
  const { pool, details: poolDetails } = parsePoolIntent(raw.pool, {
    decimals,
    initialSupply: birth.initialSupply,
    supplyCap: birth.supplyCap,
    admin: birth.fixedSupply || typeof raw.admin !== 'string' ? undefined : raw.admin,
  })
  details.push(...poolDetails)
  if (details.length > 0 || !parsed.success) return refused('INVALID_INTENT', { details })

  const data = parsed.data
  return accepted({
    intent: {
      name: data.name,
      symbol: data.symbol,
      variant,
      decimals,
      admin: data.admin ? checksumAddress(data.admin) : undefined,
      salt: data.salt ? (data.salt.toLowerCase() as Hex) : undefined,
      currency: variant === 'stablecoin' ? (data.currency ?? 'USD') : undefined,
      birth,
      pool,
      dryRun: data.dryRun ?? false,
      waitSeconds: data.waitSeconds ?? 0,
    },
  })
}

/** Validates the intent and the `Idempotency-Key` together, so one answer lists every problem (both doors use it). */
export function checkDeployRequest(body: unknown, idempotencyKey: string | null): ParseDeployIntentReturnType {
  const parsed = parseDeployIntent(body)
  const details = parsed.ok ? [] : [...parsed.details]
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
    details.push({ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' })
  return parsed.ok && details.length === 0 ? parsed : refused('INVALID_INTENT', { details })
}

/** Deploys under the idempotency record when the agent sent a key; answers the outcome and logs the attempt. */
async function deploy(
  { services, agent }: Parameters<import('./action.js').ActionRun>[0],
  request: { body: unknown; intent: DeployIntent; idempotencyKey: string | null },
): Promise<HttpAnswer> {
  const { deployToken, runIdempotently } = await import('../heavyHalf.js')
  const { intent, idempotencyKey } = request
  const run = () => deployToken({ services, intent, agentId: agent.digest, agentDailyCap: agent.dailyCap })
  const { store, logger, config } = services
  const { response, replayed } =
    idempotencyKey !== null && !intent.dryRun && store
      ? await runIdempotently({
          store,
          logger,
          keyPrefix: config.storePrefix,
          agentDigest: agent.digest,
          idempotencyKey,
          body: request.body,
          run,
          isFinal: (r) => r.ok || r.code === 'BROADCAST_UNCERTAIN',
        })
      : { response: await run(), replayed: false }
  logger.info('deploy_attempt', {
    agent: agent.digest.slice(0, 8),
    name: intent.name,
    symbol: intent.symbol,
    variant: intent.variant,
    decimals: intent.decimals,
    dryRun: intent.dryRun,
    outcome: response.ok ? response.status : response.code,
    txHash: response.ok ? (response.status === 'broadcast' ? response.txHash : undefined) : response.txHash,
    replayed,
  })
  return answer(response, replayed ? { 'idempotent-replayed': 'true' } : undefined)
}

/** `agent_deploy`, as both doors dispatch it. */
export const agentDeployAction = defineAgentAction<{ intent: DeployIntent }>({
  name: 'agent_deploy',
  summary:
    'Deploys a B20 token on Base through the native factory, born ready (initialSupply to a recipient, supplyCap or fixedSupply, ERC-7572 metadata, and with pool a Uniswap v4 pool seeded at launch, its position the owner’s): validated, simulated, signed by the service (KMS) and broadcast; counts against the rolling deploy caps. dryRun: true validates and simulates only, signing nothing.',
  schema: agentDeploySchema,
  examples: {
    deploy: { summary: 'A plain deploy', value: { action: 'agent_deploy', name: 'Example Token', symbol: 'EXT' } },
    bornReady: {
      summary: 'A token born with supply, a cap and ERC-7572 metadata, in one transaction',
      value: {
        action: 'agent_deploy',
        name: 'Example Token',
        symbol: 'EXT',
        admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        initialSupply: '1000000',
        supplyCap: '10000000',
        description: 'The points token of Example.',
        image: 'https://example.com/ext.png',
        website: 'https://example.com',
      },
    },
    pooled: {
      summary: 'A launch that trades from birth: 60 % of the supply in a Uniswap v4 pool at a 10 ETH market cap',
      value: {
        action: 'agent_deploy',
        name: 'Pooled Token',
        symbol: 'POOL',
        admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        initialSupply: '1000000000',
        pool: { amount: '600000000', startingMarketCapEth: '10' },
        waitSeconds: 6,
      },
    },
    fixedSupply: {
      summary: 'A fixed supply: no admin and no minter, ever',
      value: {
        action: 'agent_deploy',
        name: 'Fixed Example',
        symbol: 'FIX',
        fixedSupply: true,
        initialSupply: '21000000',
        recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      },
    },
  },
  answers: [deployBroadcastSchema, deploySimulatedSchema],
  check({ body, idempotencyKey }) {
    const checked = checkDeployRequest(body, idempotencyKey)
    if (!checked.ok) return invalidRequest('agent_deploy', checked.details)
    const { intent } = checked
    return { ok: true, intent, run: (context) => deploy(context, { body, intent, idempotencyKey }) }
  },
  tool: {
    name: 'deploy_token',
    title: 'Deploy a B20 token',
    description:
      'Use dryRun: true first. Answers the txHash and the predicted token address; then call get_deploy_receipt. Needs the agent key.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: agentDeploySchema.omit({ action: true }).extend({
      idempotencyKey: z
        .string()
        .regex(IDEMPOTENCY_KEY_PATTERN)
        .optional()
        .describe(
          'As the Idempotency-Key header: the same key and arguments within 24 h return the first answer instead of deploying twice',
        ),
    }),
    toRequest({ idempotencyKey, ...fields }) {
      if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
        const details = [{ field: 'idempotencyKey', reason: 'must be 1 to 128 visible ASCII characters' }]
        return invalidRequest('agent_deploy', details)
      }
      return { ok: true, body: { ...fields, action: 'agent_deploy' }, idempotencyKey: idempotencyKey ?? null }
    },
    summarize(body) {
      if (body.status === 'simulated')
        return `Simulated: the token would be at ${body.predictedAddress}; nothing was signed. Most it could cost: ${body.maxFeeWei} wei.`
      const receipt = body.receipt as
        | { status?: string; tokenAddress?: string; blockNumber?: number; pool?: { status: string; positionId?: string } }
        | undefined
      const pool = body.pool as { poolId: string; owner: string } | undefined
      const pooled = pool
        ? ` Pool ${pool.poolId}${receipt?.pool ? ` ${receipt.pool.status}${receipt.pool.positionId ? `, position ${receipt.pool.positionId}` : ''}` : ''}, held by ${pool.owner}.`
        : ''
      if (receipt?.status === 'confirmed')
        return `Confirmed in block ${receipt.blockNumber}: token ${receipt.tokenAddress} (${body.txHash}).${pooled}`
      return `Broadcast ${body.txHash}; the token will be at ${body.predictedAddress}.${pooled} Call get_deploy_receipt with waitSeconds to confirm.`
    },
  },
})
