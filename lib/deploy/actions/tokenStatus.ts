import type { Address } from 'viem'
import { z } from 'zod'
import { tokenStatusSchema } from '../answers/manageAnswers.js'
import { answer, checkBody, defineAgentAction, type PublicActionRun } from './action.js'
import { addressField } from './requestFields.js'

// `token_status`: a launched token as the chain has it now (its powers, metadata and pool). A public fact: any agent
// key, or none.

/** The `token_status` body schema. */
export const tokenStatusRequestSchema = z.strictObject({
  action: z.literal('token_status'),
  token: addressField.describe('The token launched through this service'),
  dryRun: z.boolean().optional().describe('Accepted as on every action; changes nothing: this action only reads'),
})

/** `token_status`, as both doors dispatch it. */
export const tokenStatusAction = defineAgentAction({
  name: 'token_status',
  summary:
    'A token launched here, as the chain has it now: powers (admins, minters, pausers, metadataEditors from the role logs confirmed with hasRole; supplyCap, totalSupply, paused, and signerRoles: what the service’s signer still holds), metadata (the contractURI decoded) and, with a pool, pool (positionId, owner, liquidity, priceEth, feesOwed: what collect_fees delivers). No key needed.',
  schema: tokenStatusRequestSchema,
  access: 'public',
  examples: {
    tokenStatus: {
      summary: 'Who can mint, and the fees the pool has earned',
      value: { action: 'token_status', token: '0xb200000000000000000000a1b2c3d4e5f6a7b8c9' },
    },
  },
  answers: [tokenStatusSchema],
  check({ body }) {
    const checked = checkBody(tokenStatusRequestSchema, body, 'token_status')
    if (!checked.ok) return checked
    const token = checked.data.token as Address
    const run: PublicActionRun = async ({ services }) => {
      const read = await (await import('../heavyHalf.js')).readLaunchState({ services, token })
      if (!read.ok) return answer(read)
      const { token: address, blockNumber, rolesComplete, powers, metadata, pool } = read.state
      return answer({ ok: true, token: address, blockNumber, rolesComplete, powers, metadata, pool })
    }
    return { ok: true, run }
  },
  tool: {
    name: 'token_status',
    title: 'Token status',
    description: 'No key needed (throttled per client without one).',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: tokenStatusRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'token_status' }, idempotencyKey: null }),
    summarize: (body) => {
      const powers = body.powers as { minters?: unknown[]; signerRoles?: unknown[] } | undefined
      const pool = body.pool as { feesOwed?: { eth?: string; token?: string } } | null | undefined
      const fees = pool?.feesOwed ? `; fees owed ${pool.feesOwed.eth} ETH and ${pool.feesOwed.token} tokens` : ''
      return `${body.token} at block ${body.blockNumber}: ${powers?.minters?.length ?? 0} minters, the service holds ${powers?.signerRoles?.length ? powers.signerRoles.join(', ') : 'no role'}${fees}.`
    },
  },
})
