/**
 * The exchange families whose ids GeckoTerminal spells with a version or a pool kind (`uniswap-v4-base`,
 * `aerodrome-slipstream-3`) and DexScreener spells as the family alone (`uniswap`, `aerodrome`).
 */
const FAMILIES = [
  'uniswap',
  'aerodrome',
  'pancakeswap',
  'sushiswap',
  'baseswap',
  'alienbase',
  'balancer',
  'curve',
  'velodrome',
  'maverick',
  'swapbased',
  'solidly',
  'equalizer',
  'thruster',
] as const

/**
 * Launchpads GeckoTerminal lists as an exchange of their own whose pools are Uniswap v4 pools with hooks: DexScreener
 * lists those pools under `uniswap`, so a launchpad pool with a 32-byte v4 pool id reads as `uniswap`.
 */
const V4_HOOK_LAUNCHPADS: ReadonlySet<string> = new Set(['bankr', 'o1-launchpad', 'clanker', 'zora'])

/** A version or pool-kind suffix after a family name: `-v2`, `-v3`, `-v4`, `-slipstream`, `-slipstream-3`, `-cl`, `-stable`. */
const VARIANT = /^-(v\d+|slipstream(-\d+)?|cl(-\d+)?|stable|volatile|amm|clmm)$/

/** Parameters of {@link canonicalDexId}. */
export type CanonicalDexIdParameters = {
  /** The exchange id as the upstream sent it (DexScreener's or GeckoTerminal's). */
  dexId: string
  /** The pool's id: a 32-byte one marks a Uniswap v4 pool. */
  pairAddress?: string | null
}

/**
 * The exchange id in DexScreener's vocabulary, whichever source served the pair: `uniswap-v3-base` -> `uniswap`,
 * `aerodrome-slipstream-3` -> `aerodrome`, `pancakeswap-v3-base` -> `pancakeswap`; a v4-hook launchpad pool
 * (`bankr` with a 32-byte pool id) -> `uniswap`; any other id loses a `-base` suffix and stays as it is.
 */
export function canonicalDexId({ dexId, pairAddress }: CanonicalDexIdParameters): string {
  const id = dexId.toLowerCase().replace(/-base$/, '')
  for (const family of FAMILIES) if (id === family || (id.startsWith(family) && VARIANT.test(id.slice(family.length)))) return family
  if (V4_HOOK_LAUNCHPADS.has(id) && typeof pairAddress === 'string' && /^0x[0-9a-fA-F]{64}$/.test(pairAddress)) return 'uniswap'
  return id
}
