// `npm run agents -- issue | list | revoke`: agent keys at runtime, kept in the shared store the service reads (only
// their SHA-256 digests), so adding or removing an agent needs no redeploy. Running instances accept a new key at once
// and refuse a revoked or expired one within 5 s.
import { parseArgs } from 'node:util'
import { AgentAdminError, type AgentListing, issueAgentKey, listAgentKeys, revokeAgentKey } from '../lib/deploy/agents/agentRegistry.js'
import { ConfigError, loadDeployConfig } from '../lib/platform/config.js'
import { createUpstashStore } from '../lib/store/upstash.js'

const USAGE = `usage:
  npm run agents -- issue --label <name> [--daily-cap N] [--expires-days N] [--json]
  npm run agents -- list [--json]
  npm run agents -- revoke <label | digest prefix>`

/** Ends the command with a message on stderr and exit code 1 (nothing was written). */
function fail(message: string): never {
  console.error(`agents: ${message}`)
  process.exit(1)
}

/** A whole or decimal number option, or null when absent; a clear failure for anything else. */
function numberOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n)) fail(`--${name} must be a number, not "${value.slice(0, 40)}"`)
  return n
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '))

/** One line an agent, for people. */
const describe = (a: AgentListing) =>
  [
    a.label.padEnd(24),
    a.digestPrefix,
    `created ${when(a.createdAt)}`,
    `last used ${when(a.lastUsedAt)}`,
    `expires ${when(a.expiresAt)}`,
    a.dailyCap === null ? 'cap -' : `cap ${a.dailyCap}/window`,
    a.revokedAt === null ? 'active' : `REVOKED ${when(a.revokedAt)}`,
  ].join('  ')

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        label: { type: 'string' },
        'daily-cap': { type: 'string' },
        'expires-days': { type: 'string' },
        json: { type: 'boolean' },
      },
    })
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`)
  }
})()
const [command, ...rest] = positionals
if (!command || !['issue', 'list', 'revoke'].includes(command)) fail(USAGE)

let config: ReturnType<typeof loadDeployConfig>
try {
  config = loadDeployConfig(process.env)
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error))
}
if (!config.redis) {
  fail(
    'needs the shared store the service uses: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or KV_REST_API_URL and KV_REST_API_TOKEN). An in-process store cannot be shared with running instances.',
  )
}
const store = createUpstashStore(config.redis)

try {
  if (command === 'issue') {
    if (!values.label) fail(`issue needs --label <name>\n${USAGE}`)
    const { key, record } = await issueAgentKey({
      store,
      storePrefix: config.storePrefix,
      label: values.label,
      dailyCap: numberOption('daily-cap', values['daily-cap']),
      expiresInDays: numberOption('expires-days', values['expires-days']),
    })
    if (values.json) console.log(JSON.stringify({ key, label: record.label, digest: record.digest }))
    else {
      console.log(`agent key for "${record.label}" (shown once; give it to the agent, sent as X-Service-Key): ${key}`)
      console.log(`digest: ${record.digest}  expires: ${when(record.expiresAt)}  daily cap: ${record.dailyCap ?? '-'}`)
    }
  } else if (command === 'list') {
    const agents = await listAgentKeys(store, config.storePrefix)
    if (values.json) console.log(JSON.stringify(agents))
    else if (agents.length === 0) console.log('no agent keys issued yet (npm run agents -- issue --label <name>)')
    else for (const agent of agents) console.log(describe(agent))
  } else {
    const which = rest[0]
    if (!which) fail(`revoke needs a label or digest prefix\n${USAGE}`)
    const record = await revokeAgentKey(store, config.storePrefix, which)
    console.log(`revoked "${record.label}" (${record.digest.slice(0, 12)}); running instances refuse it within 5 s`)
  }
} catch (error) {
  fail(error instanceof AgentAdminError ? error.message : `the shared store failed (${(error as Error).name}); nothing was changed`)
}
