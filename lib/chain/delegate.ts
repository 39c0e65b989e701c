// Which EIP-7702 delegate the signer's account runs, as constants alone (no viem), so the configuration that defaults
// to it loads nothing heavy.

/** Simple7702Account v0.8's deployment on Base, the address wallet SDKs default to (docs/operations.md: how it is checked). */
export const SIMPLE_7702_ACCOUNT_ADDRESS = '0xe6Cae83BdE06E4c305530e199D7217f42808555B' as const

/**
 * keccak256 of Simple7702Account v0.8's runtime code, the package artifact's `deployedBytecode` (it has no immutables,
 * so the code on chain is exactly it; `tests/deploy/batchAccount.test.ts` holds the two equal): the health check and a
 * pooled launch hold the delegate's code to it.
 */
export const SIMPLE_7702_ACCOUNT_CODE_HASH = '0xcc7b633aef4b2543cb8f37522adf1a401f910f0f6b2430c1eecc11f401ccfcf3' as const
