import { randomBytes } from 'node:crypto'
import type { Address } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { type AnvilChain, startAnvilChain } from './anvil.js'
import { type FakeDexScreener, startFakeDexScreener } from './fakeDexScreener.js'
import { type FakeKms, startFakeKms } from './fakeKms.js'
import { createSyntheticMarket } from './syntheticMarket.js'
import { startUpstashRestServer, type UpstashRestServer } from './upstashRestServer.js'

/**
 * Every real part a whole service talks to (the DexScreener-shaped upstream, the Upstash front over redis-server,
 * anvil with the B20 emulator, the KMS server with a funded key), and the environment that points `npm start` or a
 * built function at them.
 */
export type ServiceParts = {
  upstream: FakeDexScreener
  upstash: UpstashRestServer
  chain: AnvilChain
  kms: FakeKms
  /** The KMS key's address, funded on the chain. */
  signer: Address
  /** The service's environment: upstream, store, chain, KMS, with `allowlist` digests on the deploy allowlist. */
  env: Record<string, string>
  close(): Promise<void>
}

/** Parameters of {@link startServiceParts}. */
export type StartServicePartsParameters = {
  redisSocket: string
  /** Agent key digests for `DEPLOY_ALLOWLIST`. */
  allowlist: readonly string[]
  /** Store key prefix (each test file its own). */
  storePrefix: string
  /** The AWS secret the service signs KMS requests with (a distinctive one lets a test look for it in logs). */
  awsSecret?: string
  /** More environment (caps, tokens). */
  env?: Record<string, string>
}

/** Starts the parts in parallel and funds the signer. */
export async function startServiceParts(parameters: StartServicePartsParameters): Promise<ServiceParts> {
  const secretKey = randomBytes(32)
  const [upstream, upstash, chain, kms] = await Promise.all([
    startFakeDexScreener(createSyntheticMarket()),
    startUpstashRestServer({ redisSocket: parameters.redisSocket }),
    startAnvilChain(),
    startFakeKms({ secretKey }),
  ])
  const signer = privateKeyToAddress(`0x${secretKey.toString('hex')}`)
  await chain.fund(signer)
  const env: Record<string, string> = {
    DEXSCREENER_BASE_URL: upstream.url,
    GECKOTERMINAL_BASE_URL: '',
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    STORE_KEY_PREFIX: parameters.storePrefix,
    DEPLOY_ALLOWLIST: parameters.allowlist.join(','),
    BASE_RPC_URL: chain.rpcUrl,
    KMS_KEY_ID: kms.keyArn,
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_KMS: kms.url,
    AWS_ACCESS_KEY_ID: 'AKIASERVICEPARTS01',
    AWS_SECRET_ACCESS_KEY: parameters.awsSecret ?? 'test-service-parts-aws-secret',
    ...parameters.env,
  }
  return {
    upstream,
    upstash,
    chain,
    kms,
    signer,
    env,
    close: async () => {
      await Promise.all([upstream.close(), upstash.close(), chain.stop(), kms.close()])
    },
  }
}
