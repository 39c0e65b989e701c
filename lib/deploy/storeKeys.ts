/** Parameters of {@link deployStoreKeys}. */
export type DeployStoreKeysParameters = { storePrefix: string; chainId: number; signer: string }

/** The shared-store keys of the deploy path: the signer's nonce lock and claims, and the rolling caps. */
export function deployStoreKeys({ storePrefix, chainId, signer }: DeployStoreKeysParameters) {
  const base = `${storePrefix}deploy:${chainId}`
  return {
    lock: `${base}:nonce-lock:${signer.toLowerCase()}`,
    nonce: (n: number) => `${base}:nonce:${signer.toLowerCase()}:${n}`,
    cap: `${base}:cap`,
    agentCap: (digest: string) => `${base}:cap:agent:${digest}`,
  }
}
