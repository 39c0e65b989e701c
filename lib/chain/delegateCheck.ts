import { type Address, keccak256, type PublicClient } from 'viem'
import { SIMPLE_7702_ACCOUNT_CODE_HASH } from './delegate.js'

// Whether an EIP-7702 delegate holds the code the service pins (Simple7702Account v0.8's), read from the chain.

/** Whether a delegate's code is Simple7702Account v0.8's; a node that cannot answer throws. */
export type DelegateCheck = (delegate: Address) => Promise<boolean>

/**
 * A {@link DelegateCheck} over the node: `eth_getCode` hashed and held to the pinned hash. A match is kept for the
 * instance's life (code at an address cannot change since Cancun), so a launch asks the chain about it once.
 */
export function createDelegateCheck(publicClient: Pick<PublicClient, 'getCode'>): DelegateCheck {
  const good = new Set<string>()
  return async (delegate) => {
    if (good.has(delegate.toLowerCase())) return true
    const code = await publicClient.getCode({ address: delegate })
    const ok = !!code && code !== '0x' && keccak256(code) === SIMPLE_7702_ACCOUNT_CODE_HASH
    if (ok) good.add(delegate.toLowerCase())
    return ok
  }
}
