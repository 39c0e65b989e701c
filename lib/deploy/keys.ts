/**
 * Every shared-store key of the deploy side, in one place: the signer's nonce lock and caps, the deploy records and
 * their indexes, a deployed token's market as DexScreener lists it, idempotency, the agent registry, webhook targets and
 * the webhook outbox (a launch's own keys, its pool's market, signal and trade watch, are lib/launches/keys.ts's).
 * `storePrefix` is `STORE_KEY_PREFIX`. This module imports nothing, so every part of lib/deploy/ may use it.
 */

/** Parameters of {@link deployStoreKeys}. */
export type DeployStoreKeysParameters = { storePrefix: string; chainId: number; signer: string }

/** The keys of the rolling caps of deploys with an agent key: the service's, and each key's own. */
export function deployCapKeys({ storePrefix, chainId }: Omit<DeployStoreKeysParameters, 'signer'>) {
  const base = `${storePrefix}deploy:${chainId}`
  return {
    cap: `${base}:cap`,
    agentCap: (digest: string) => `${base}:cap:agent:${digest}`,
    /** One agent's actions on a token the service executed (their own rolling cap). */
    tokenActionCap: (digest: string) => `${base}:cap:actions:${digest}`,
  }
}

/** The keys of the signer's nonce stream and of the rolling caps. */
export function deployStoreKeys({ storePrefix, chainId, signer }: DeployStoreKeysParameters) {
  const base = `${storePrefix}deploy:${chainId}`
  return {
    ...deployCapKeys({ storePrefix, chainId }),
    lock: `${base}:nonce-lock:${signer.toLowerCase()}`,
    /** Fence keys of the signer's nonces: the prefix, then the nonce. */
    noncePrefix: `${base}:nonce:${signer.toLowerCase()}:`,
    /** The signer's next nonce, as the service has handed them out. */
    nonceNext: `${base}:nonce-next:${signer.toLowerCase()}`,
  }
}

/** Store keys of the deploy records, the per-agent history and the signer's unmined transactions. */
export type DeployHistoryKeys = {
  recordPrefix: string
  record: (txHash: string) => string
  agent: (agentDigest: string) => string
  unmined: (signer: string) => string
  /** Every agent's deploys, by when they were sent: what the tick follows to the market. */
  recent: string
  /** The signer's pooled launches whose pool is not settled yet (seeded, or its share given back): what the tick checks. */
  poolsOpen: (signer: string) => string
  /** Every pooled launch, by when it was sent (30 days): the pools whose swaps the tick follows. */
  pooled: string
  /** Paid launches whose pool failed, by when the tick saw it: the paid door's tick credits the pool's part of their price. */
  paidPoolsFailed: string
  /** The deploy a token was created by (its first hash), written with its record: a lookup by address is one read. */
  launchOf: (token: string) => string
  /** Set once the deploys older than {@link launchOf} were given theirs: with it, a token without one is no launch here. */
  launchOfComplete: string
}

/** Parameters of {@link deployHistoryKeys}. */
export type DeployHistoryKeysParameters = { storePrefix: string; chainId: number }

/** The history's keys; the agent history does not depend on the signer, so it survives a key rotation. */
export function deployHistoryKeys({ storePrefix, chainId }: DeployHistoryKeysParameters): DeployHistoryKeys {
  const base = `${storePrefix}deploy:${chainId}`
  const recordPrefix = `${base}:tx:`
  return {
    recordPrefix,
    record: (txHash) => recordPrefix + txHash.toLowerCase(),
    agent: (agentDigest) => `${base}:history:${agentDigest}`,
    unmined: (signer) => `${base}:unmined:${signer.toLowerCase()}`,
    recent: `${base}:recent`,
    poolsOpen: (signer) => `${base}:pools-open:${signer.toLowerCase()}`,
    pooled: `${base}:pooled`,
    paidPoolsFailed: `${base}:pools-failed:paid`,
    launchOf: (token) => `${base}:launch-of:${token.toLowerCase()}`,
    launchOfComplete: `${base}:launch-of-complete`,
  }
}

/**
 * Store key of a deployed token's market as DexScreener lists it: the launches' tick job writes it, a receipt, an
 * agent's history and the launches feed read it (records/tokenMarkets.ts).
 */
export const tokenMarketKey = (storePrefix: string, chainId: number, address: string) =>
  `${storePrefix}deploy:${chainId}:market:${address.toLowerCase()}`

/** Store key of one agent's idempotency record (`keyHash`: the SHA-256 of its `Idempotency-Key`). */
export const idempotencyKey = (storePrefix: string, agentDigest: string, keyHash: string) =>
  `${storePrefix}deploy:idempotency:${agentDigest}:${keyHash}`

/** The store keys of the agent registry. */
export function agentRegistryKeys(storePrefix: string) {
  const base = `${storePrefix}agents:v1:`
  return {
    /** The record of one digest. */
    record: (digest: string) => `${base}key:${digest}`,
    recordPrefix: `${base}key:`,
    /** The digest holding a label (labels are unique). */
    label: (label: string) => `${base}label:${label}`,
    /** When a key was last used (epoch ms), written at most once a minute per instance. */
    lastUsed: (digest: string) => `${base}used:${digest}`,
    /** Every digest, by creation time. */
    index: `${base}all`,
  }
}

/** The store keys of agents' webhooks. */
export function webhookTargetKeys(storePrefix: string) {
  const base = `${storePrefix}agents:v1:`
  return {
    target: (digest: string) => `${base}webhook:${digest}`,
    status: (digest: string) => `${base}webhook-status:${digest}`,
  }
}

/** The store keys of the webhook outbox: each event, the index of events due for an attempt, and each agent's events. */
export function webhookOutboxKeys(storePrefix: string) {
  const base = `${storePrefix}webhooks:v1:`
  return {
    event: (id: string) => `${base}event:${id}`,
    /** What an event's key starts with (its id follows). */
    eventPrefix: `${base}event:`,
    due: `${base}due`,
    agentEvents: (digest: string) => `${base}agent:${digest}`,
  }
}

/**
 * Store key of what is kept of a launched token for reading its powers and pool (records/launchState.ts): the deploy it
 * came from, its creation block and creator, its pool's position once seeded, and its role logs read so far.
 */
export const launchStateKey = (storePrefix: string, chainId: number, address: string) =>
  `${storePrefix}deploy:${chainId}:launch-state:${address.toLowerCase()}`

/** Store key of a keyless client's throttle on the public agent actions (`client`: an address, or an IPv6 /64). */
export const publicActionsThrottleKey = (storePrefix: string, client: string) => `${storePrefix}deploy:throttle:public:${client}`
