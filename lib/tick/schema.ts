import { z } from 'zod'

const part = z
  .object({
    ok: z.boolean(),
    error: z.string().optional().describe('The failing error’s name'),
    code: z.string().optional().describe('The failing error’s code (INTERNAL: not one of the service’s own errors)'),
    message: z.string().optional(),
  })
  .catchall(z.unknown())

/** Body of `/api/tick`: what the tick did, part by part. */
export const tickSummarySchema = z.object({
  ok: z.boolean().describe('Every part that ran went well'),
  ran: z.boolean().describe('False when another tick already ran in this interval (across instances): nothing was done'),
  caller: z.string().describe('vercel-cron, qstash or in-process'),
  startedAt: z.string().describe('ISO 8601'),
  durationMs: z.number().int().min(0),
  parts: z
    .object({
      controlRoom: part.optional().describe('refreshed, ageSeconds, tokens, source'),
      snapshot: part.optional().describe('mark, written'),
      backfill: part.optional().describe('fetched, failed, remaining, skipped'),
      deploys: part.optional().describe('unmined, confirmed, reverted, replaced, skipped, replacement'),
      markets: part.optional().describe('tokens, calls, failedCalls, updated, listed, skipped: deployed tokens followed to the market'),
      chainMarkets: part
        .optional()
        .describe('pools, fromBlock, toBlock, swaps, updated, rpcCalls, skipped: launched pools’ swaps read from the chain'),
      webhooks: part.optional().describe('due, delivered, retrying, failed, disabled, skipped: webhook retries'),
      payments: part
        .optional()
        .describe(
          'open, decided, paid, refused, unknown, busy, skipped: paid deploys’ payments left settling or unknown, decided from the chain',
        ),
      discovery: part.optional().describe('due, pages, failedPages, learned'),
    })
    .optional(),
  failed: z.array(z.string()).optional().describe('The parts that failed'),
})
