import type { Address } from 'viem'
import { z } from 'zod'
import { SOCIALS_MAX } from '../../chain/metadataLimits.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { tokenActionAnswerSchemas } from '../answers/manageAnswers.js'
import { invalidRequest } from '../outcome.js'
import type { TokenActionRequest } from '../pipeline/tokenActionPlan.js'
import { DEPLOY_WAIT_SECONDS_MAX } from '../sender/waitSeconds.js'
import { answer, checkBody, defineAgentAction, type PublicActionRun } from './action.js'
import { IDEMPOTENCY_KEY_PATTERN } from './agentDeploy.js'
import { addressField, httpsUrlField, onChainTextField, tokenAmountField, waitSecondsField } from './requestFields.js'

// The actions that run a launched token after its birth: update_metadata, mint, transfer_admin and renounce. Each is
// simulated first, then either sent by the service's signer (where it holds the role and the agent asking launched the
// token) or answered as prepared calls for the role holder's own wallet; lib/deploy/pipeline/tokenAction.ts runs
// them. They share their fields, their check and their run; each is one entry here.

/** The fields every action on a token takes. */
const tokenActionFields = {
  token: addressField.describe('The token launched through this service'),
  from: addressField
    .optional()
    .describe('The account to prepare the calls for (one holding the role); default: the service’s signer where it may act, else a holder'),
  dryRun: z.boolean({ error: 'must be true or false' }).optional().describe('true: simulate only; nothing is signed or sent'),
  waitSeconds: waitSecondsField(DEPLOY_WAIT_SECONDS_MAX)
    .optional()
    .describe(`Executed actions: wait up to this many seconds (0-${DEPLOY_WAIT_SECONDS_MAX}) for the block`),
}

const socialName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case name like "x" or "telegram"')

/** How one action on a token is declared: its name, its own fields, and what its request says. */
type TokenActionSpec<F extends z.ZodRawShape> = {
  name: TokenActionRequest['action']
  title: string
  summary: string
  fields: F
  refine?: (data: z.infer<z.ZodObject<F>>, ctx: z.RefinementCtx) => void
  request: (data: z.infer<z.ZodObject<F>>) => TokenActionRequest
  example: Record<string, unknown>
  destructive: boolean
}

/** Declares an action on a token (see {@link TokenActionSpec}): public, its execution needing the launching agent's key. */
function defineTokenAction<F extends z.ZodRawShape>(spec: TokenActionSpec<F>) {
  const shape = { action: z.literal(spec.name), ...tokenActionFields, ...spec.fields }
  const base = z.strictObject(shape)
  const schema = spec.refine ? base.superRefine(spec.refine as never) : base
  return defineAgentAction({
    name: spec.name,
    summary: spec.summary,
    schema,
    access: 'public',
    examples: {
      [spec.name]: {
        summary: spec.title,
        value: { action: spec.name, token: '0xb200000000000000000000a1b2c3d4e5f6a7b8c9', ...spec.example },
      },
    },
    answers: tokenActionAnswerSchemas,
    check({ body, idempotencyKey }) {
      const checked = checkBody(schema as z.ZodType<Record<string, unknown>>, body, spec.name)
      if (!checked.ok) return checked
      if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
        return invalidRequest(spec.name, [{ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' }])
      const data = checked.data as z.infer<z.ZodObject<F>> & { token: string; from?: string; dryRun?: boolean; waitSeconds?: number }
      const run: PublicActionRun = async ({ services, agent }) => {
        const { runTokenAction, runIdempotently } = await import('../heavyHalf.js')
        const go = () =>
          runTokenAction({
            services,
            agent,
            token: data.token as Address,
            request: spec.request(data),
            ...(data.from ? { from: data.from as Address } : {}),
            ...(data.dryRun ? { dryRun: true } : {}),
            ...(data.waitSeconds ? { waitSeconds: data.waitSeconds } : {}),
          })
        if (!agent || idempotencyKey === null || data.dryRun || !services.store) return go()
        // An executed action runs once per key and body (24 h), as a deploy does; anything else is asked again.
        let status = 200
        const { response, replayed } = await runIdempotently({
          store: services.store,
          logger: services.logger,
          keyPrefix: services.config.storePrefix,
          agentDigest: agent.digest,
          idempotencyKey,
          body,
          run: async () => {
            const ran: HttpAnswer = await go()
            status = ran.status
            return ran.body as { ok: boolean; status?: string }
          },
          // A send the node did not acknowledge may be on chain: its answer is replayed, never sent again.
          isFinal: (r) => ('status' in r && r.status === 'broadcast') || ('code' in r && r.code === 'BROADCAST_UNCERTAIN'),
        })
        return { ...answer(response, replayed ? { 'idempotent-replayed': 'true' } : undefined), status: replayed ? 200 : status }
      }
      return { ok: true, run }
    },
    tool: {
      name: spec.name,
      title: spec.title,
      description:
        'Executed by the service with the key of the agent that launched the token, where its signer holds the role; otherwise answers prepared calls for `from` (send them with wallet_sendCalls). No key needed for prepared calls.',
      annotations: { readOnlyHint: false, destructiveHint: spec.destructive, idempotentHint: false, openWorldHint: true },
      input: base.omit({ action: true }).extend({
        idempotencyKey: z
          .string()
          .regex(IDEMPOTENCY_KEY_PATTERN)
          .optional()
          .describe(
            'As the Idempotency-Key header: an executed action with the same key and arguments within 24 h is answered again, not sent twice',
          ),
      }),
      toRequest: ({ idempotencyKey, ...args }) => {
        if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)))
          return invalidRequest(spec.name, [{ field: 'idempotencyKey', reason: 'must be 1 to 128 visible ASCII characters' }])
        return { ok: true, body: { ...args, action: spec.name }, idempotencyKey: idempotencyKey ?? null }
      },
      summarize: (body) =>
        body.status === 'prepared'
          ? `Prepared: send ${Array.isArray(body.calls) ? body.calls.length : 0} call(s) from ${body.from} on chain ${body.chainId}. ${body.effect}`
          : body.status === 'broadcast'
            ? `Broadcast ${body.txHash}. ${body.effect}`
            : `${String(body.status)}: ${body.effect}`,
    },
  })
}

/** `update_metadata`: the token's ERC-7572 fields (as at birth, plus socials), and its name and symbol. */
export const updateMetadataAction = defineTokenAction({
  name: 'update_metadata',
  title: 'Update a token’s metadata',
  summary:
    'Updates a launched token’s metadata (METADATA_ROLE): description, image, website and socials in its contractURI (the other fields kept), and its name and symbol (updateName, updateSymbol). Executed by the service where its signer holds the role and the caller launched the token; prepared calls otherwise.',
  fields: {
    description: onChainTextField(500, 'must be text').optional(),
    image: httpsUrlField.optional(),
    website: httpsUrlField.optional(),
    socials: z
      .record(socialName, httpsUrlField)
      .refine((v) => Object.keys(v).length <= SOCIALS_MAX, `must have at most ${SOCIALS_MAX} entries`)
      .optional()
      .describe('Where the token is on social networks: a name (x, telegram, farcaster…) to an https URL; replaces the ones set'),
    name: onChainTextField(64, 'must be text').optional(),
    symbol: z
      .string()
      .regex(/^[A-Za-z0-9]{1,11}$/, 'must be 1 to 11 letters or digits')
      .optional(),
  },
  refine: (data, ctx) => {
    const changes = ['description', 'image', 'website', 'socials', 'name', 'symbol'].filter(
      (field) => (data as Record<string, unknown>)[field] !== undefined,
    )
    if (changes.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['description'],
        message: 'at least one of description, image, website, socials, name or symbol is required',
      })
  },
  request: ({ description, image, website, socials, name, symbol }) => ({
    action: 'update_metadata',
    description,
    image,
    website,
    socials,
    name,
    symbol,
  }),
  example: { description: 'The token of the Example community', website: 'https://example.org' },
  destructive: false,
})

/** `mint`: whole tokens to an address, within the cap. */
export const mintAction = defineTokenAction({
  name: 'mint',
  title: 'Mint tokens',
  summary:
    'Mints `amount` whole tokens to `to` (MINT_ROLE), within the supply cap: past it, SUPPLY_CAP_EXCEEDED names the room left. Executed by the service where its signer holds the role and the caller launched the token; prepared calls otherwise.',
  fields: {
    to: addressField.describe('Who receives the tokens'),
    // Its digits after the point are held to the token's decimals once the token is read; the form is checked first.
    amount: tokenAmountField
      .regex(/^\d{1,78}(?:\.\d{1,78})?$/, 'must be a decimal number of whole tokens, like "1000" or "12.5"')
      .refine((v) => /[1-9]/.test(v), 'must be more than 0')
      .describe('Whole tokens, like "1000" or "12.5"'),
  },
  request: ({ to, amount }) => ({ action: 'mint', to: to as Address, amount }),
  example: { to: '0x1111111111111111111111111111111111111111', amount: '1000' },
  destructive: false,
})

/** `transfer_admin`: the admin (and the minter's and metadata roles held) handed to `to`, every role given up. */
export const transferAdminAction = defineTokenAction({
  name: 'transfer_admin',
  title: 'Hand a token over',
  summary:
    'Hands the token over to `to` in one transaction: `to` gets the admin role and, where the sender held them, the minter’s and metadata roles; then the sender gives up every role it held. `to` may not be the token, the factory or the service’s signer. Executed by the service where its signer is admin and the caller launched the token; prepared calls for the admin otherwise.',
  fields: { to: addressField.describe('The new admin') },
  request: ({ to }) => ({ action: 'transfer_admin', to: to as Address }),
  example: { to: '0x1111111111111111111111111111111111111111' },
  destructive: true,
})

/** `renounce`: the signer (or `from`) gives up every role; a preview without `confirm`. */
export const renounceAction = defineTokenAction({
  name: 'renounce',
  title: 'Give up every role',
  summary:
    'The service’s signer (or `from`, with prepared calls) gives up every role it holds on the token, minters included; the last admin’s by renounceLastAdmin, after which nobody can grant or revoke a role and the holders of the other roles keep them for good. Without confirm: true it only previews who keeps what (status "preview"), nothing sent.',
  fields: {
    confirm: z
      .literal(true, { error: 'must be true to renounce; leave it out to preview' })
      .optional()
      .describe('true: do it; absent: preview who keeps what'),
  },
  request: ({ confirm }) => ({ action: 'renounce', ...(confirm ? { confirm: true } : {}) }),
  example: { confirm: true },
  destructive: true,
})
