import { decodePaymentRequiredHeader } from '@x402/core/http'
import { generatePrivateKey } from 'viem/accounts'
import { createChainClient } from '../lib/chain/client.js'
import { deployServicesFrom } from '../lib/deploy/instance.js'
import { createDeployServices } from '../lib/deploy/services.js'
import { createPaidDeployEndpoint } from '../lib/payments/endpoint.js'
import { createPaymentFacilitator } from '../lib/payments/facilitator/httpFacilitator.js'
import { paymentsSourceFrom } from '../lib/payments/instance.js'
import { silentLogger } from '../lib/platform/log.js'
import { createUpstashStore } from '../lib/store/upstash.js'
import { fakeKmsClient } from '../tests/support/fakeKms.js'
import { startPaidDoorParts } from '../tests/support/paidDoorParts.js'
import { signPaymentHeader } from '../tests/support/payingClient.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { openRespConnection, type RespConnection } from '../tests/support/resp.js'

/** The flood: requests, payers (random keys holding nothing), and the client addresses they come from. */
const REQUESTS = 10_000
const PAYERS = 1_000
const CLIENTS = 2_500
/** Requests in flight at once. */
const CONCURRENCY = 16
/**
 * The door's `X402_RATE_LIMIT_PER_MINUTE` in the run: under the 10 requests each payer sends (each from another client
 * address), so the per-payer budget shows. With the default 30 every one of them would be verified.
 */
const RATE_LIMIT = 5
/** What "a few minutes" is: a key that lives longer than this is still there once the short lifetimes passed. */
const SHORT_MS = 10 * 60_000

/**
 * Every key holding the store prefix, with what redis says it has left to live (ms; -1: for ever). `@upstash/ratelimit`
 * joins its own (empty) prefix to a key with ':', so the door's throttle keys start with ':' before the store prefix.
 */
async function lifetimes(redis: RespConnection, prefix: string): Promise<Map<string, number>> {
  const found = new Map<string, number>()
  let cursor = '0'
  do {
    const [next, batch] = (await redis.send(['SCAN', cursor, 'MATCH', `*${prefix}*`, 'COUNT', '1000'])) as [string, string[]]
    const ttls = await Promise.all(batch.map((key) => redis.send(['PTTL', key])))
    // -2: the key lapsed between SCAN and PTTL (a budget's minute, a throttle's window): gone, not kept.
    for (const [i, key] of batch.entries()) if (Number(ttls[i]) !== -2) found.set(key, Number(ttls[i]))
    cursor = String(next)
  } while (cursor !== '0')
  return found
}

/** The keys by what they are (`payment`, `idempotency`, `throttle`, …: the word after the door's `x402:<chain>:`). */
function byKind(keys: Iterable<string>, base: string): string {
  const kinds = new Map<string, number>()
  for (const key of keys) {
    const at = key.indexOf(base)
    const kind = at >= 0 ? key.slice(at + base.length).split(':')[0]! : 'other'
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  return [...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none'
}

const usedMemory = async (redis: RespConnection) => Number(/used_memory:(\d+)/.exec(String(await redis.send(['INFO', 'memory'])))?.[1])

/**
 * The paid door against a cheap flood (`npm run bench -- paid-flood`): 10,000 requests to `POST /api/x402/deploy`,
 * each with an Idempotency-Key of its own and a valid x402 `exact` payment signed by one of 1,000 random keys holding
 * nothing (10 each), from 2,500 client addresses (`x-real-ip`; a payer's 10 from 10 of them), against the door in
 * process over the real parts: the Upstash front over a redis-server of its own, anvil with the test USDC, the local
 * facilitator over HTTP. It counts the answers, the facilitator's verifies, the store's commands and keys (by kind)
 * and redis's memory, then the keys that outlive the short lifetimes, from the TTLs redis holds (nothing is waited for).
 */
export async function benchPaidFlood(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const storePrefix = `paidflood${process.pid}:`
  const parts = await startPaidDoorParts({
    redisSocket: redis.socket,
    storePrefix,
    env: { X402_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) },
  })
  const connection = await openRespConnection(redis.socket)
  try {
    const store = createUpstashStore({ url: parts.env.UPSTASH_REDIS_REST_URL!, token: parts.env.UPSTASH_REDIS_REST_TOKEN! })
    const services = createDeployServices({
      env: parts.env,
      store,
      publicClient: createChainClient({ rpcUrl: parts.chain.rpcUrl, chainId: 8453, timeoutMs: 3000 }),
      kms: fakeKmsClient(parts.kms.url),
      logger: silentLogger,
    })
    const facilitator = createPaymentFacilitator({ url: parts.facilitator.url, cdp: null, now: Date.now })
    const door = createPaidDeployEndpoint(paymentsSourceFrom({ deploy: deployServicesFrom(() => services), env: parts.env, facilitator }))
    const send = async (client: string, headers: Record<string, string> = {}) => {
      const response = await door.fetch(
        new Request('https://svc.test/api/x402/deploy', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-real-ip': client, ...headers },
          body: '{"name":"Flood","symbol":"FLOOD"}',
        }),
      )
      return { status: response.status, headers: response.headers, body: (await response.json()) as { code?: string } }
    }
    const asked = await send('198.18.255.1')
    const requirements = decodePaymentRequiredHeader(asked.headers.get('payment-required')!).accepts[0]!
    const before = {
      keys: (await lifetimes(connection, storePrefix)).size,
      memory: await usedMemory(connection),
      commands: parts.upstash.commands.length,
      verifies: parts.facilitator.calls.filter((c) => c === 'verify').length,
    }
    const answers = new Map<string, number>()
    const perPayer = REQUESTS / PAYERS
    let nextPayer = 0
    const from = performance.now()
    // Each worker takes a payer and sends its requests one after another, so a payer's requests fall within a minute.
    const worker = async () => {
      for (let payer = nextPayer++; payer < PAYERS; payer = nextPayer++) {
        const privateKey = generatePrivateKey()
        for (let k = 0; k < perPayer; k++) {
          const i = payer * perPayer + k
          const header = await signPaymentHeader({ privateKey, requirements })
          const client = `198.18.${Math.floor((i % CLIENTS) / 250)}.${i % 250}`
          const answer = await send(client, { 'payment-signature': header, 'idempotency-key': `flood-${i}` })
          const label = `${answer.status} ${answer.body.code ?? ''}`.trim()
          answers.set(label, (answers.get(label) ?? 0) + 1)
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    const seconds = (performance.now() - from) / 1000
    const after = await lifetimes(connection, storePrefix)
    const memory = await usedMemory(connection)
    const outliving = [...after].filter(([, ttl]) => ttl < 0 || ttl > SHORT_MS)
    const longest = Math.max(0, ...[...after.values()])
    const verifies = parts.facilitator.calls.filter((c) => c === 'verify').length - before.verifies
    const base = `${storePrefix}x402:8453:`
    return {
      [`requests / payers (unfunded) / client addresses (X402_RATE_LIMIT_PER_MINUTE ${RATE_LIMIT})`]: `${REQUESTS} / ${PAYERS} / ${CLIENTS}`,
      answers: [...answers].map(([label, n]) => `${label} ${n}`).join(', '),
      'facilitator verifies (settles)': `${verifies} (${parts.facilitator.calls.filter((c) => c === 'settle').length})`,
      'store commands a request': Math.round(((parts.upstash.commands.length - before.commands) / REQUESTS) * 10) / 10,
      'store keys before the flood': before.keys,
      'store keys right after it, by kind': `${after.size} (${byKind(after.keys(), base)})`,
      'longest TTL among them, s': Math.round(longest / 1000),
      [`store keys left once the short lifetimes passed (TTL over ${SHORT_MS / 60_000} min, or none)`]: `${outliving.length}${
        outliving.length
          ? ` (${byKind(
              outliving.map(([key]) => key),
              base,
            )})`
          : ''
      }`,
      'redis used_memory added, MB': Math.round(((memory - before.memory) / 1e6) * 10) / 10,
      'requests a second': Math.round(REQUESTS / seconds),
      'run seconds': Math.round(seconds),
    }
  } finally {
    connection.close()
    await parts.close()
    await redis.stop()
  }
}
