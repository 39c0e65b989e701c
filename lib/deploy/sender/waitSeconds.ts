// No import: the agent actions' validation reads this bound without loading viem (a cold path loads only what it needs).

/** The longest `waitSeconds` a send may wait for its block: Base's nodes hold a waiting send at most 6,000 ms. */
export const DEPLOY_WAIT_SECONDS_MAX = 6
