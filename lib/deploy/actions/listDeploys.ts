import { z } from 'zod'
import { listDeploysSchema } from '../answers/receipts.js'
import { answer, checkBody, defineAgentAction } from './action.js'
import { lengthOf, NEWEST_LIMIT_DEFAULT, newestLimit } from './newestLimit.js'

// `list_deploys`: the calling agent's own deploys, newest first, with their status and market.

/** The `list_deploys` body schema. */
export const listDeploysRequestSchema = z.strictObject({ action: z.literal('list_deploys'), limit: newestLimit('deploys') })

/** `list_deploys`, as both doors dispatch it. */
export const listDeploysAction = defineAgentAction({
  name: 'list_deploys',
  summary:
    'The calling agent’s own deploys of the last 30 days, newest first, with their last known status and market: null until the token trades, then its DexScreener pair (pairAddress, dexId, priceUsd, liquidity, volume24h, pairUrl, firstSeenAt).',
  schema: listDeploysRequestSchema,
  answers: [listDeploysSchema],
  check({ body }) {
    const checked = checkBody(listDeploysRequestSchema, body, 'list_deploys')
    if (!checked.ok) return checked
    const limit = checked.data.limit ?? NEWEST_LIMIT_DEFAULT
    return {
      ok: true,
      run: async ({ services, agent }) =>
        answer(await (await import('../heavyHalf.js')).listDeploys({ services, agentDigest: agent.digest, limit })),
    }
  },
  tool: {
    name: 'list_deploys',
    title: 'My deploys',
    description: 'Needs the agent key.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: listDeploysRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'list_deploys' }, idempotencyKey: null }),
    summarize: (body) => `${lengthOf(body.deploys)} deploys, newest first.`,
  },
})
