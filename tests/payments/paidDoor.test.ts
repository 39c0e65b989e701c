import { afterAll, beforeAll, describe, inject } from 'vitest'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { definePaidDoorCases, type PaidDoorTarget } from '../support/paidDoorCases.js'
import { startPaidDoorParts } from '../support/paidDoorParts.js'

// The paid door's case list over `npm start`: two instances of the door over one Upstash front (redis-server), one
// anvil with the test USDC, one KMS server and the local facilitator; a third instance with the paid cap full.
// tests/platform/vercelBuild.test.ts runs the same list over the Vercel build output.

describe('POST /api/x402/deploy over npm start (two instances, the local facilitator, a real x402 client)', () => {
  let target: PaidDoorTarget
  let instances: NpmStart[] = []
  beforeAll(async () => {
    const parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix: `paid${process.pid}:` })
    instances = await Promise.all([
      startNpmStart(parts.env),
      startNpmStart(parts.env),
      startNpmStart({ ...parts.env, X402_DAILY_CAP: '0' }),
    ])
    const [a, b, full] = instances as [NpmStart, NpmStart, NpmStart]
    target = { parts, doors: [a.url, b.url], full: full.url, lines: () => instances.flatMap((i) => i.lines) }
  }, 120_000)
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()))
    await target?.parts.close()
  })

  definePaidDoorCases(() => target)
})
