import { z } from 'zod'
import { TICK_JOBS } from './jobs.js'

const part = z
  .object({
    ok: z.boolean(),
    error: z.string().optional().describe('The failing error’s name'),
    code: z.string().optional().describe('The failing error’s code (INTERNAL: not one of the service’s own errors)'),
    message: z.string().optional(),
  })
  .catchall(z.unknown())

/** Body of `/api/tick`: what the tick did, part by part (one part a job of lib/tick/jobs.ts, in its order). */
export const tickSummarySchema = z.object({
  ok: z.boolean().describe('Every part that ran went well'),
  ran: z.boolean().describe('False when another tick already ran in this interval (across instances): nothing was done'),
  caller: z.string().describe('vercel-cron, qstash or in-process'),
  startedAt: z.string().describe('ISO 8601'),
  durationMs: z.number().int().min(0),
  parts: z.object(Object.fromEntries(TICK_JOBS.map((job) => [job.name, part.optional().describe(job.details)]))).optional(),
  failed: z.array(z.string()).optional().describe('The parts that failed'),
})
