/** The two token variants, by the name the API uses. */
export type B20Variant = 'asset' | 'stablecoin'
/** Numeric value of each variant in the factory's enum. */
export const VARIANT_ID: Record<B20Variant, 0 | 1> = { asset: 0, stablecoin: 1 }
/** Decimals of every stablecoin. */
export const STABLECOIN_DECIMALS = 6
/** Each variant by its numeric value in the factory's enum. */
export const VARIANT_BY_ID: Readonly<Record<number, B20Variant>> = { 0: 'asset', 1: 'stablecoin' }
