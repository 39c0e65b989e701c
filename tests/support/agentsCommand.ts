import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runAgentsCommand } from '../../dev/agentsCommand.js'
import { TYPESCRIPT_ARGS } from './npmStart.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What one run of `npm run agents -- …` printed, and its exit code. */
export type AgentsRun = { status: number; stdout: string; stderr: string }

/** The store variables an operator's shell may carry, cleared so that only the given ones reach the command. */
const CLEARED = { UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '', KV_REST_API_URL: '', KV_REST_API_TOKEN: '' }

/**
 * `npm run agents -- …` run in this process (the command's own module, as dev/agents.ts runs it), with the given
 * environment: the same output and exit code as the CLI, without starting Node for every call.
 */
export async function runAgents(args: string[], env: Record<string, string>): Promise<AgentsRun> {
  const stdout: string[] = []
  const stderr: string[] = []
  const status = await runAgentsCommand({
    args,
    env: { ...process.env, ...CLEARED, ...env },
    out: (line) => stdout.push(`${line}\n`),
    err: (line) => stderr.push(`${line}\n`),
  })
  return { status, stdout: stdout.join(''), stderr: stderr.join('') }
}

/** `npm run agents -- …` as an operator runs it: a Node process running dev/agents.ts as package.json's script does, the CLI's entry point. */
export function spawnAgents(args: string[], env: Record<string, string>): Promise<AgentsRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...TYPESCRIPT_ARGS, 'dev/agents.ts', ...args],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...CLEARED, ...env } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}
