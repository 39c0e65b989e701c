import { multiplyDecimals, tokenValueEth } from '../../market/poolPrice.js'

// The price a launch's pool is born at, as answers and the launches feed say it (pure, exact integer maths; no Uniswap
// SDK, so the feed that shows it loads none): from the sqrtPriceX96 the pool is initialised with, which sits on a
// usable tick, so it is the asked market cap moved by up to 1 % at tick spacing 200; the chain's slot0 says the same.

/** A pool's first price and market cap, in ETH (decimal strings of 18 significant digits). */
export type StartValuation = {
  /** ETH per whole token at the pool's first price. */
  startPriceEth: string
  /** ETH the whole supply is worth at that price. */
  startMarketCapEth: string
}

/** Parameters of {@link startValuation}. */
export type StartValuationParameters = {
  sqrtPriceX96: bigint
  decimals: number
  /** Base units of the whole supply: the cap when there is one, else what was minted at birth. */
  wholeSupply: bigint
}

/** The price and market cap a pool is born at, from the `sqrtPriceX96` it is initialised with. */
export function startValuation({ sqrtPriceX96, decimals, wholeSupply }: StartValuationParameters): StartValuation {
  return {
    startPriceEth: tokenValueEth(sqrtPriceX96, 10n ** BigInt(decimals)),
    startMarketCapEth: tokenValueEth(sqrtPriceX96, wholeSupply),
  }
}

/** The first price and market cap in USD, through WETH's price (null: unknown, and then both are null). */
export type StartValuationUsd = { startPriceUsd: string | null; startMarketCapUsd: string | null }

/** A pool's first price and market cap in USD at WETH's price (18 significant digits), or nulls without one. */
export function startValuationUsd(view: StartValuation, wethUsd: string | null): StartValuationUsd {
  if (wethUsd === null) return { startPriceUsd: null, startMarketCapUsd: null }
  return {
    startPriceUsd: multiplyDecimals(view.startPriceEth, wethUsd),
    startMarketCapUsd: multiplyDecimals(view.startMarketCapEth, wethUsd),
  }
}
