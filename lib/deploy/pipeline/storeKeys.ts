/** Parameters of {@link deployStoreKeys}. */
export type DeployStoreKeysParameters = { storePrefix: string; chainId: number; signer: string }

/** The shared-store keys of the deploy path: the signer's nonce lock, counter and claims, and the rolling caps. */
export function deployStoreKeys({ storePrefix, chainId, signer }: DeployStoreKeysParameters) {
  const base = `${storePrefix}deploy:${chainId}`
  return {
    lock: `${base}:nonce-lock:${signer.toLowerCase()}`,
    /** Fence keys of the signer's nonces: the prefix, then the nonce. */
    noncePrefix: `${base}:nonce:${signer.toLowerCase()}:`,
    /** The signer's next nonce, as the service has handed them out. */
    nonceNext: `${base}:nonce-next:${signer.toLowerCase()}`,
    cap: `${base}:cap`,
    agentCap: (digest: string) => `${base}:cap:agent:${digest}`,
  }
}
