// What `npm run agents -- issue | list | revoke | webhook | tokens | credits | payments` does: agent keys at runtime, kept in the shared store the
// service reads (only their SHA-256 digests), so adding or removing an agent needs no redeploy. Running instances
// accept a new key at once and refuse a revoked or expired one within 5 s. An agent's webhook (its deploy events,
// signed the Standard Webhooks way) is set at issue time or later; its secret is shown once. `tokens` lists the tokens an
// agent launched with the roles the service's signer still holds on each (one eth_call). `credits` lists the paid
// deploys (x402) that were paid and not deployed, for the operator to refund or to wait for the payer's retry;
// `payments` every payment that reached a settle and did not end deployed or refused, in its ledger state.
// It runs in the CLI's process (dev/agents.ts) or in a test's, and never exits the process itself.
import { parseArgs } from 'node:util'
import { createChainClient } from '../lib/chain/client.js'
import { AgentAdminError, findAgentRecord, issueAgentKey, revokeAgentKey } from '../lib/deploy/agents/agentRegistry.js'
import { paidAgentId } from '../lib/deploy/agents/paidAgent.js'
import { type AgentWithWebhook, listAgentsWithWebhooks, setAgentWebhook } from '../lib/deploy/agents/webhookTargets.js'
import { checkWebhookUrl } from '../lib/deploy/agents/webhookUrl.js'
import { type DeployConfig, loadDeployConfig } from '../lib/deploy/config.js'
import { deployHistoryKeys } from '../lib/deploy/keys.js'
import { type AgentToken, listAgentTokens } from '../lib/deploy/records/signerRoles.js'
import { paymentKeys } from '../lib/payments/keys.js'
import { listOpenPayments } from '../lib/payments/ledger/openPayments.js'
import { type PaymentRecord, paymentIdOf } from '../lib/payments/ledger/paymentRecord.js'
import { ConfigError } from '../lib/platform/config.js'
import { BaseError } from '../lib/platform/errors.js'
import type { Store } from '../lib/store/types.js'
import { createUpstashStore } from '../lib/store/upstash.js'

const USAGE = `usage:
  npm run agents -- issue --label <name> [--daily-cap N] [--expires-days N] [--webhook <https url>] [--json]
  npm run agents -- list [--json]
  npm run agents -- revoke <label | digest prefix>
  npm run agents -- webhook <label | digest prefix> (<https url> | --off) [--json]
  npm run agents -- tokens <label | digest prefix | digest | x402:<payer>> [--json]
  npm run agents -- credits [--json]
  npm run agents -- payments [--json]`

/** Why the command stopped before doing anything: its message goes to stderr with exit code 1. */
class CommandRefused extends BaseError<'COMMAND_REFUSED'> {
  override name = 'CommandRefused'
  constructor(message: string) {
    super(message, { code: 'COMMAND_REFUSED' })
  }
}

/** Ends the command with a message on stderr and exit code 1 (nothing was written). */
function fail(message: string): never {
  throw new CommandRefused(message)
}

/** A whole or decimal number option, or null when absent; a clear failure for anything else. */
function numberOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n)) fail(`--${name} must be a number, not "${value.slice(0, 40)}"`)
  return n
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '))

/** An agent's webhook in a few words, for people: never its secret. */
const describeWebhook = (a: AgentWithWebhook) => {
  const w = a.webhook
  if (!w) return 'webhook -'
  const errors = w.lastError ? `  last error ${when(w.lastErrorAt)} (${w.lastError}), failing ${w.failing}` : ''
  return `webhook ${w.state} ${w.url}  last delivery ${when(w.lastDeliveryAt)}${errors}${w.failedEvents ? `, ${w.failedEvents} events failed` : ''}`
}

/** A payment in whole tokens of a 6-decimal asset (USDC), as people read a price. */
const wholeTokens = (units: string) =>
  `${(BigInt(units) / 1_000_000n).toString()}.${(BigInt(units) % 1_000_000n).toString().padStart(6, '0')}`

/** What each open state means, for people. */
const OPEN_STATE: Record<string, (p: PaymentRecord) => string> = {
  credit: (p) => `paid, not deployed (${p.credit?.code ?? 'deploy pending'})`,
  deploying: () => 'paid, deploy under way or cut short (a resend or the chain tells)',
  settling: () => 'settle asked, outcome not seen (the chain tells)',
  unknown: () => 'settle outcome unknown (pending or no answer; the chain decides by validBefore)',
  verifying: () => 'verify asked, nothing settled',
}

/** One line an open payment, for people: its state, a credit (paid, not deployed), or a settle whose outcome nobody saw. */
const describeOpenPayment = (p: PaymentRecord) =>
  [
    paymentIdOf(p.payer, p.nonce),
    p.state.padEnd(9),
    (p.credit?.id ?? p.poolCredit?.id ?? '-').padEnd(27),
    p.poolCredit
      ? `deployed without its pool: ${wholeTokens(p.poolCredit.amount)} (the pool's part) to refund`
      : (OPEN_STATE[p.state]?.(p) ?? p.state),
    `payer ${p.payer}`,
    `${wholeTokens(p.amount)} of ${p.asset} on ${p.network}`,
    `settlement ${p.transaction ?? '-'}`,
    `since ${when(p.at)}`,
  ].join('  ')

/** One line an agent, for people. */
const describe = (a: AgentWithWebhook) =>
  [
    a.label.padEnd(24),
    a.digestPrefix,
    `created ${when(a.createdAt)}`,
    `last used ${when(a.lastUsedAt)}`,
    `expires ${when(a.expiresAt)}`,
    a.dailyCap === null ? 'cap -' : `cap ${a.dailyCap}/window`,
    a.revokedAt === null ? 'active' : `REVOKED ${when(a.revokedAt)}`,
    describeWebhook(a),
  ].join('  ')

/** A token's signer roles for people: the names, `none`, or why they are unknown. */
const describeRoles = (token: AgentToken, chainAnswered: boolean) =>
  token.signerRoles
    ? token.signerRoles.join(',') || 'none'
    : token.status === 'broadcast'
      ? 'unknown (not mined yet)'
      : chainAnswered
        ? 'unknown (its creator is not recorded)'
        : 'unknown (the chain did not answer)'

/** Parameters of {@link listTokens}. */
type ListTokensParameters = { store: Store; config: DeployConfig; which: string; json: boolean; out: (line: string) => void }

/**
 * `tokens`: the tokens an agent launched, newest first, one a line (address, symbol, the roles the service's signer
 * still holds or `none`): a key issued here by label or digest prefix, a DEPLOY_ALLOWLIST key by its digest, a paid
 * agent as `x402:<payer>`. One eth_call on BASE_RPC_URL for all of them.
 */
async function listTokens({ store, config, which, json, out }: ListTokensParameters): Promise<void> {
  const agentDigest = /^[0-9a-f]{64}$/.test(which)
    ? which
    : /^x402:0x[0-9a-fA-F]{40}$/.test(which)
      ? paidAgentId(which.slice(5))
      : (await findAgentRecord(store, config.storePrefix, which)).digest
  const { tokens, chainAnswered } = await listAgentTokens({
    store,
    keys: deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId }),
    agentDigest,
    client: createChainClient({ rpcUrl: config.rpcUrl, chainId: config.chainId }),
    signer: config.signerAddress,
  })
  if (json) out(JSON.stringify(tokens))
  else if (tokens.length === 0) out(`no tokens launched by "${which}" in the last 30 days`)
  else for (const token of tokens) out([token.address, token.symbol.padEnd(12), describeRoles(token, chainAnswered)].join('  '))
}

/** One run of `npm run agents -- …`: its arguments, its environment, and where its output lines go. */
export type AgentsCommandParameters = {
  args: string[]
  env: Record<string, string | undefined>
  /** A line for stdout. */
  out: (line: string) => void
  /** A line for stderr. */
  err: (line: string) => void
}

/** Runs `npm run agents -- …` once and answers its exit code: 0 done, 1 refused (said on `err`, nothing written). */
export async function runAgentsCommand(parameters: AgentsCommandParameters): Promise<number> {
  try {
    await agentsCommand(parameters)
    return 0
  } catch (error) {
    parameters.err(`agents: ${error instanceof CommandRefused ? error.message : String(error)}`)
    return 1
  }
}

/** The command line's options and positionals; a clear failure, with the usage, for anything it cannot read. */
function parseCommandArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        label: { type: 'string' },
        'daily-cap': { type: 'string' },
        'expires-days': { type: 'string' },
        webhook: { type: 'string' },
        off: { type: 'boolean' },
        json: { type: 'boolean' },
      },
    })
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`)
  }
}

async function agentsCommand({ args, env, out }: AgentsCommandParameters): Promise<void> {
  const { values, positionals } = parseCommandArgs(args)
  const [command, ...rest] = positionals
  if (!command || !['issue', 'list', 'revoke', 'webhook', 'tokens', 'credits', 'payments'].includes(command)) fail(USAGE)

  let config: ReturnType<typeof loadDeployConfig>
  try {
    config = loadDeployConfig(env)
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
      // A refused webhook URL stops the command before anything is written.
      const verdict = values.webhook === undefined ? null : checkWebhookUrl({ url: values.webhook, onVercel: config.onVercel })
      if (verdict && !verdict.ok) fail(`the webhook URL ${verdict.reason}; nothing was written`)
      const { key, record } = await issueAgentKey({
        store,
        storePrefix: config.storePrefix,
        label: values.label,
        dailyCap: numberOption('daily-cap', values['daily-cap']),
        expiresInDays: numberOption('expires-days', values['expires-days']),
      })
      const webhookSecret = verdict?.ok
        ? (
            await setAgentWebhook({
              store,
              storePrefix: config.storePrefix,
              which: record.label,
              url: verdict.url,
              onVercel: config.onVercel,
            })
          ).secret
        : null
      if (values.json) out(JSON.stringify({ key, label: record.label, digest: record.digest, ...(webhookSecret ? { webhookSecret } : {}) }))
      else {
        out(`agent key for "${record.label}" (shown once; give it to the agent, sent as X-Service-Key): ${key}`)
        out(`digest: ${record.digest}  expires: ${when(record.expiresAt)}  daily cap: ${record.dailyCap ?? '-'}`)
        if (webhookSecret) out(`webhook secret (shown once; the agent verifies deliveries with it): ${webhookSecret}`)
      }
    } else if (command === 'tokens') {
      if (!rest[0]) fail(`tokens needs a label, digest prefix, digest or x402:<payer>\n${USAGE}`)
      await listTokens({ store, config, which: rest[0], json: values.json === true, out })
    } else if (command === 'credits' || command === 'payments') {
      const listed = await listOpenPayments(store, paymentKeys({ storePrefix: config.storePrefix, chainId: config.chainId }))
      // `credits`: what the operator may have to refund (paid, not deployed; or a failed pool's part of the price);
      // `payments`: every open one, in any state.
      const owed = (p: PaymentRecord) => p.state === 'credit' || p.state === 'deploying' || p.poolCredit !== undefined
      const open = command === 'credits' ? listed.filter(owed) : listed
      if (values.json)
        out(JSON.stringify(open.map(({ answer: _answer, ...record }) => ({ id: paymentIdOf(record.payer, record.nonce), ...record }))))
      else if (open.length === 0) out('no open paid deploys: every settled payment bought its deploy')
      else for (const payment of open) out(describeOpenPayment(payment))
    } else if (command === 'list') {
      const agents = await listAgentsWithWebhooks(store, config.storePrefix)
      if (values.json) out(JSON.stringify(agents))
      else if (agents.length === 0) out('no agent keys issued yet (npm run agents -- issue --label <name>)')
      else for (const agent of agents) out(describe(agent))
    } else if (command === 'webhook') {
      const [which, url] = rest
      if (!which || (url === undefined) === !values.off) fail(`webhook needs a label and either a URL or --off\n${USAGE}`)
      const { record, secret } = await setAgentWebhook({
        store,
        storePrefix: config.storePrefix,
        which,
        url: values.off ? null : url!,
        onVercel: config.onVercel,
      })
      if (values.json) out(JSON.stringify({ label: record.label, digest: record.digest, webhookSecret: secret }))
      else if (secret) out(`webhook of "${record.label}" set; its secret (shown once; the agent verifies deliveries with it): ${secret}`)
      else out(`webhook of "${record.label}" removed; no more deliveries`)
    } else {
      const which = rest[0]
      if (!which) fail(`revoke needs a label or digest prefix\n${USAGE}`)
      const record = await revokeAgentKey(store, config.storePrefix, which)
      out(`revoked "${record.label}" (${record.digest.slice(0, 12)}); running instances refuse it within 5 s`)
    }
  } catch (error) {
    if (error instanceof CommandRefused) throw error
    fail(error instanceof AgentAdminError ? error.message : `the shared store failed (${(error as Error).name}); nothing was changed`)
  }
}
