import { z } from 'zod'

const part = z
  .object({
    ok: z.boolean(),
    latencyMs: z.number().int().min(0).optional(),
    error: z.string().optional().describe('The failing error’s name, never its message'),
  })
  .catchall(z.unknown())

/** Body of `GET /api/health`: the public fields always; the parts only in the detailed view. */
export const healthSchema = z.object({
  ok: z.boolean().describe('Public view: the shared store answers. Detailed view: every part is up'),
  version: z.string(),
  dataAgeSeconds: z.number().int().min(0).nullable().describe('Age of the cached control room; null before the first refresh'),
  lastTickAgeSeconds: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe('Seconds since the scheduled tick last ran (about 60 when the schedule is on); null when it has not run in 7 days'),
  store: part.optional(),
  upstreams: z.object({ dexscreener: part, geckoterminal: part }).optional(),
  rpc: part.optional().describe('chainId, expectedChainId, head'),
  signer: part.optional().describe('address, balanceEth, minBalanceEth, lowBalance'),
  deploys: part.optional().describe('usedInWindow, cap, windowSeconds, oldestUnmined { txHash, nonce, pendingSeconds }'),
  variants: part
    .optional()
    .describe(
      'B20 variants as Base’s ActivationRegistry says, as deploys see them (kept a few minutes): asset and stablecoin ("active" or "inactive"), checkedAgeSeconds',
    ),
  delegation: part
    .optional()
    .describe(
      'The EIP-7702 executor pooled launches run through (EIP7702_DELEGATE): address (the executor, not the signer), ok when its code is Simple7702Account v0.8’s, signerDelegated once the first pooled launch set the signer’s delegation',
    ),
  tick: part.optional().describe('lastTick { at, durationMs, caller, failed, parts }; not ok when the last tick is over 10 minutes old'),
})
