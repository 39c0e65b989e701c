// WETH's USD price as the control room says it (pure): what turns a launch's ETH price, volume and market cap into USD.
// Always the room's current one, never the one kept with a pool's last swap, so a quiet pool's USD price stays current.

/** WETH on Base (and Base Sepolia): its price in the control room is ETH's. */
export const WETH_ADDRESS = '0x4200000000000000000000000000000000000006'

/** A token as the control room lists it, as far as its price goes. */
export type PricedToken = { address: string; priceUsd: string | null }

/** WETH's USD price among a room's tokens (a decimal string), or null when the room does not list it or prices it oddly. */
export function wethUsdAmong(tokens: readonly PricedToken[] | null | undefined): string | null {
  const weth = tokens?.find((token) => token.address.toLowerCase() === WETH_ADDRESS)
  return weth?.priceUsd && /^\d+(\.\d+)?$/.test(weth.priceUsd) && !/^0+(\.0+)?$/.test(weth.priceUsd) ? weth.priceUsd : null
}
