import type { Address } from 'viem'

/** Uniswap v4 and Permit2 on Base (chain 8453), the defaults of UNISWAP_V4_* and PERMIT2_ADDRESS. */
export const BASE_UNISWAP_V4 = {
  poolManager: '0x498581fF718922c3f8e6A244956aF099B2652b2b',
  positionManager: '0x7C5f5A4bBd8fD63184577525326123B519429bDc',
  stateView: '0xA3c0c9b65baD0b08107Aa264b0f3dB444b867A71',
  permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
} as const satisfies Record<string, Address>

/** Where a launch's pool is made: the contracts the seeding transactions call. */
export type UniswapV4Addresses = { [name in keyof typeof BASE_UNISWAP_V4]: Address }
