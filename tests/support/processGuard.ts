import { randomUUID } from 'node:crypto'
import { appendFileSync, readdirSync, readFileSync } from 'node:fs'

/**
 * A process seen during the run: its id, when it started (to tell it from a later one with the same id), its command,
 * and the test file still running it after its own hooks, when one was.
 */
export type SeenProcess = { pid: number; startedAt: string; command: string; file?: string }

/** Watches the processes a test run starts, to name those still running at its end. */
export type ProcessGuard = {
  /** Stops watching and returns the processes the run started that still run (after `graceMs` for them to exit). */
  stop(parameters?: { graceMs?: number }): Promise<SeenProcess[]>
}

/** The environment variable every process of the run inherits (unless started with an environment of its own). */
export const RUN_MARK = 'TEST_RUN_MARK'

type Stat = { pid: number; parent: number; state: string; startedAt: string }

/** `/proc/<pid>/stat`: the command name in parentheses may hold spaces, so the fields are read after its last `)`. */
function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { pid, state: fields[0]!, parent: Number(fields[1]), startedAt: fields[19]! }
  } catch {
    return undefined
  }
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 200)
  } catch {
    return '?'
  }
}

function carriesMark(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${RUN_MARK}=${mark}`)
  } catch {
    return false
  }
}

const allPids = () =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)

/** Every process below `root`, as it stands now. */
function descendantsOf(root: number): Stat[] {
  const children = new Map<number, Stat[]>()
  for (const pid of allPids()) {
    const stat = readStat(pid)
    if (stat) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat])
  }
  const below = [...(children.get(root) ?? [])]
  for (let i = 0; i < below.length; i++) below.push(...(children.get(below[i]!.pid) ?? []))
  return below
}

/**
 * Appends to `recordPath` (one JSON line each) the processes still below this test worker once a file's own hooks have
 * run: what the file started and did not stop. The guard checks them at the run's end, when a worker that exited would
 * have left them orphaned, out of the runner's tree.
 */
export function recordProcessesLeftBy(file: string, recordPath: string): void {
  for (const stat of descendantsOf(process.pid)) {
    const command = readCommand(stat.pid)
    if (stat.state === 'Z' || isRunnerOwn(command)) continue
    appendFileSync(recordPath, `${JSON.stringify({ pid: stat.pid, startedAt: stat.startedAt, command, file })}\n`)
  }
}

/**
 * The runner's own helpers, which it stops itself after the global teardown: its workers. (esbuild's service is a
 * test's, not the runner's: tests/support/paidDoorPage.ts stops it after its one build.)
 */
const isRunnerOwn = (command: string) => /vitest\/dist\/workers|vitest\/dist\/chunks/.test(command)

/**
 * Starts watching every process below this one (the test runner), every `intervalMs`, and marks the environment the
 * runner's workers and their children inherit. A process counts as the run's if it was seen below the runner or
 * carries the mark (an orphan whose parent exited before a look). Linux only (reads /proc).
 */
export function startProcessGuard(parameters: { recordPath: string; intervalMs?: number }): ProcessGuard {
  const mark = randomUUID()
  process.env[RUN_MARK] = mark
  const root = process.pid
  const seen = new Map<string, SeenProcess>()
  const look = () => {
    for (const stat of descendantsOf(root)) {
      const id = `${stat.pid}@${stat.startedAt}`
      if (!seen.has(id)) seen.set(id, { pid: stat.pid, startedAt: stat.startedAt, command: readCommand(stat.pid) })
    }
  }
  const readRecord = () => {
    let lines: string[] = []
    try {
      lines = readFileSync(parameters.recordPath, 'utf8').split('\n').filter(Boolean)
    } catch {
      // no file left anything
    }
    for (const line of lines) {
      const left = JSON.parse(line) as SeenProcess
      seen.set(`${left.pid}@${left.startedAt}`, left)
    }
  }
  look()
  // Every 2 s by default: a look reads every process's stat file (1.4 ms of CPU over an idle machine's 86 processes,
  // more under a run), and what it alone catches is rare (an orphan started without the mark, whose parent exited
  // between two looks).
  const timer = setInterval(look, parameters.intervalMs ?? 2_000)
  timer.unref()
  const stillRunning = () => {
    const alive: SeenProcess[] = []
    for (const one of seen.values()) {
      const stat = readStat(one.pid)
      if (stat && stat.startedAt === one.startedAt && stat.state !== 'Z') alive.push(one)
    }
    for (const pid of allPids()) {
      if (pid === root || [...seen.values()].some((p) => p.pid === pid)) continue
      const stat = readStat(pid)
      if (stat && stat.state !== 'Z' && carriesMark(pid, mark)) alive.push({ pid, startedAt: stat.startedAt, command: readCommand(pid) })
    }
    return alive.filter((p) => p.pid !== root && !isRunnerOwn(p.command))
  }
  return {
    async stop({ graceMs = 5_000 } = {}) {
      clearInterval(timer)
      look()
      readRecord()
      // A process told to stop may take a moment to exit: wait for that event, up to graceMs.
      const deadline = Date.now() + graceMs
      let alive = stillRunning()
      while (alive.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        alive = stillRunning()
      }
      return alive
    },
  }
}
