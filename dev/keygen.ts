import { generateAgentKey } from '../lib/deploy/agents/agentKeys.js'

// `npm run keygen`: a new agent key for the agent, and its digest for DEPLOY_ALLOWLIST (the server never stores keys).
const { key, digest } = generateAgentKey()
console.log(`agent key (give to the agent, send as X-Service-Key): ${key}`)
console.log(`digest (append to DEPLOY_ALLOWLIST, comma-separated):   ${digest}`)
