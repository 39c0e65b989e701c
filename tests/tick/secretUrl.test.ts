import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { loadHealthConfig } from '../../lib/health/config.js'
import { createHealthEndpoint } from '../../lib/health/endpoint.js'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { runTick } from '../../lib/tick/runTick.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'
import { openRespConnection, type RespReply } from '../support/resp.js'

/** An RPC URL as Alchemy, Infura and QuickNode issue them: the API key is the last path segment. */
const RPC_KEY = 'rpcKeyAbCdEf0123456789SeCrEt'
const FAILING_RPC = `http://127.0.0.1:9/v2/${RPC_KEY}`
const HEALTH_TOKEN = 'health-token-secret-url-0123456789'

/** Every value under `prefix` in redis-server, whatever its type, as text. */
async function everythingStored(socket: string, prefix: string): Promise<string> {
  const redis = await openRespConnection(socket)
  try {
    const keys = (await redis.send(['KEYS', `${prefix}*`])) as string[]
    const values: RespReply[] = []
    for (const key of keys) {
      const type = String(await redis.send(['TYPE', key]))
      const read: Record<string, string[]> = {
        string: ['GET', key],
        hash: ['HGETALL', key],
        zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'],
        list: ['LRANGE', key, '0', '-1'],
        set: ['SMEMBERS', key],
      }
      if (read[type]) values.push(await redis.send(read[type]!))
    }
    expect(keys.length).toBeGreaterThan(3) // the scan sees what the service wrote
    return JSON.stringify([keys, values])
  } finally {
    redis.close()
  }
}

describe('an RPC URL with its key in the path never leaves the process (anvil, Upstash over redis-server)', () => {
  let stack: DeployStack
  let read: ReadServices
  const readLogs: string[] = []
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { STORE_KEY_PREFIX: 'secreturl:' } })
    read = createReadServices({
      env: { DEXSCREENER_BASE_URL: 'http://127.0.0.1:9', GECKOTERMINAL_BASE_URL: '', STORE_KEY_PREFIX: 'secreturl:' },
      store: stack.store,
      logger: createLogger({ write: (line) => readLogs.push(line) }),
      now: () => stack.clock.now,
    })
  })
  afterAll(() => stack.close())

  it('is in no tick answer, log line, stored tick or health view while the RPC fails under an unmined deploy', async () => {
    await stack.chain.testClient.setAutomine(false)
    try {
      expect((await stack.post({ action: 'agent_deploy', name: 'Unmined', symbol: 'UNM' })).body).toMatchObject({ status: 'broadcast' })
      // A new instance whose RPC URL carries a key and answers nothing: following the unmined deploy fails.
      const broken = stack.newInstance({ env: { BASE_RPC_URL: FAILING_RPC, STORE_KEY_PREFIX: 'secreturl:' } })
      stack.clock.now += 60_000
      const summary = await runTick({ read, deploy: async () => broken.services, caller: 'vercel-cron', intervalSeconds: 60 })
      expect(summary.failed).toContain('deploys')
      const deploys = summary.parts?.deploys as { ok: boolean; error: string; message?: string }
      expect(deploys).toMatchObject({ ok: false, error: expect.any(String) })

      const health = await createHealthEndpoint({
        read: () => read,
        deploy: deployServicesFrom(() => broken.services),
        config: () => loadHealthConfig({ HEALTH_TOKEN }),
      }).fetch(new Request('https://svc.test/api/health', { headers: { authorization: `Bearer ${HEALTH_TOKEN}` } }))
      const view = await health.text()
      expect(view).toContain('lastTick')

      const places = {
        answer: JSON.stringify(summary),
        health: view,
        logs: [...stack.logs, ...readLogs].join('\n'),
        store: await everythingStored(inject('redisSocket'), 'secreturl:'),
      }
      expect(places.logs).toContain('tick_part_failed') // the failure was logged, only without the key
      for (const [place, text] of Object.entries(places)) {
        expect(text, place).not.toContain(RPC_KEY)
        expect(text, place).not.toContain('127.0.0.1:9/v2')
      }
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
  })
})
