// Who a paid deploy is recorded for. A deploy paid through the x402 door has no agent key: its records, indexes and
// receipts name the payer instead, as `x402:<payer address, lower case>`. The prefix cannot be an agent key's digest
// (64 hex characters), so the two never meet.

/** What every paid agent's id starts with. */
export const PAID_AGENT_PREFIX = 'x402:'

/** The agent id of deploys paid by `payer` (an address; compared in lower case). */
export function paidAgentId(payer: string): string {
  return `${PAID_AGENT_PREFIX}${payer.toLowerCase()}`
}

/** True for a paid agent's id (deploys paid through the x402 door). */
export function isPaidAgent(agentId: string): boolean {
  return agentId.startsWith(PAID_AGENT_PREFIX)
}
