// Health's store keys (one): what health reads to see that the store answers. It imports nothing.

/** Health's only store key: read to see that the store answers, never written. */
export const healthProbeKey = (prefix: string): string => `${prefix}health:probe`
