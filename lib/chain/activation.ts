import { type Hex, keccak256, type PublicClient, toHex } from 'viem'
import { ACTIVATION_REGISTRY_ADDRESS } from './b20.js'
import type { B20Variant } from './b20Variants.js'

// Which B20 variants the network has switched on. Base's ActivationRegistry answers `isActivated(feature)` per variant
// and its admin can switch one off at any time; `createB20` of a variant that is off reverts `FeatureNotActivated`.
// The answer is kept a few minutes per instance: a deploy never waits on it more than once in that time, and a switch
// is seen within that time. An RPC that cannot say is "unknown", never "off": the deploy's own simulation decides then
// (it decodes `FeatureNotActivated` before anything is signed or settled).

/** The ActivationRegistry's feature of each variant: `keccak256("base.b20_asset")`, `keccak256("base.b20_stablecoin")`. */
export const B20_FEATURES: Readonly<Record<B20Variant, Hex>> = {
  asset: keccak256(toHex('base.b20_asset')),
  stablecoin: keccak256(toHex('base.b20_stablecoin')),
}

/** How long an instance keeps what the registry said. */
export const ACTIVATION_CACHE_MS = 180_000

/** The ActivationRegistry's one function the service uses (it never reverts). */
export const activationRegistryAbi = [
  {
    type: 'function',
    name: 'isActivated',
    stateMutability: 'view',
    inputs: [{ name: 'feature', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const

/** Whether each variant is on (`true`), off (`false`), or unknown (`null`: the RPC could not say). */
export type VariantActivation = Record<B20Variant, boolean | null>

/** What the registry said, and when (on the reader's clock; null when it could not be asked). */
export type ActivationView = { variants: VariantActivation; checkedAt: number | null }

/** An instance's view of the registry, read at most once per {@link ACTIVATION_CACHE_MS}. */
export type ActivationReader = {
  /** Every variant's state (from the cache while it is fresh, else asked again); never throws. */
  read(): Promise<ActivationView>
  /** One variant's state: `false` only when the registry said so. */
  isActive(variant: B20Variant): Promise<boolean | null>
}

/** Parameters of {@link createActivationReader}. */
export type CreateActivationReaderParameters = {
  client: Pick<PublicClient, 'readContract'>
  /** The injected clock's `now`: how old the cached answer is. */
  now: () => number
  /** Default {@link ACTIVATION_CACHE_MS}. */
  ttlMs?: number
}

/** Asks the registry about both variants at once; throws what the RPC threw. */
export async function readVariantActivation(client: Pick<PublicClient, 'readContract'>): Promise<Record<B20Variant, boolean>> {
  const ask = (variant: B20Variant) =>
    client.readContract({
      address: ACTIVATION_REGISTRY_ADDRESS,
      abi: activationRegistryAbi,
      functionName: 'isActivated',
      args: [B20_FEATURES[variant]],
    })
  const [asset, stablecoin] = await Promise.all([ask('asset'), ask('stablecoin')])
  return { asset, stablecoin }
}

const UNKNOWN: ActivationView = { variants: { asset: null, stablecoin: null }, checkedAt: null }

/**
 * A reader that keeps the registry's answer for `ttlMs` and shares one question among the callers that arrive while it
 * is asked. A failed question is not kept: the next caller asks again.
 */
export function createActivationReader({ client, now, ttlMs = ACTIVATION_CACHE_MS }: CreateActivationReaderParameters): ActivationReader {
  let known: ActivationView | null = null
  let asking: Promise<ActivationView> | null = null
  const read = (): Promise<ActivationView> => {
    if (known?.checkedAt != null && now() - known.checkedAt < ttlMs) return Promise.resolve(known)
    asking ??= readVariantActivation(client)
      .then(
        (variants): ActivationView => {
          known = { variants, checkedAt: now() }
          return known
        },
        () => UNKNOWN,
      )
      .finally(() => {
        asking = null
      })
    return asking
  }
  return { read, isActive: async (variant) => (await read()).variants[variant] }
}
