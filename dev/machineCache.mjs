// Where the project keeps what it fetches from the npm registry once per machine rather than once per clone: Node 24
// for the runner (dev/onSupportedNode.mjs), the Vercel CLI of the build test (tests/support/vercelBuild.ts) and
// Lighthouse for the dashboard benchmark (bench/dashboard.ts). That is the user's cache folder, as other tools that
// fetch a runtime keep theirs, so a second clone (CI checks out a clean one each run) finds them in place. Plain
// JavaScript that any Node runs, as the runner is.
import { accessSync, constants, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/**
 * `$XDG_CACHE_HOME/base-control-room` (`~/.cache/base-control-room` without it, or when it is relative), created if
 * missing; the clone's own `.cache/` (`projectRoot` is the clone) when that folder cannot be made or written.
 */
export function machineCacheDir(projectRoot) {
  try {
    // A relative folder would move with the working directory: a relative XDG_CACHE_HOME is passed over, and an empty
    // HOME (no absolute home folder) leaves the clone's .cache/.
    const base =
      process.env.XDG_CACHE_HOME && isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : join(homedir(), '.cache')
    if (!isAbsolute(base)) throw new Error('no absolute cache folder')
    const dir = join(base, 'base-control-room')
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return dir
  } catch {
    return join(projectRoot, '.cache')
  }
}

// An install lands in a folder of its own, named after the process that makes it, then is renamed into place, so that
// two clones installing at once each land whole. A process killed mid-install (Ctrl-C, a CI timeout) leaves its folder
// behind, and the machine's folder outlives every clone, so the runner removes such folders each time it uses the
// machine's folder. A folder is left alone while its process runs, or while anything was added to it, to its
// node_modules or to a folder there in the last hour: a process in another container that shares the folder has
// an id this one cannot see, and npm writes below node_modules, which a folder's own time does not show. One that cannot
// be removed (another user's) is passed over.
const PARTIAL = /\.partial-(\d+)-[a-z0-9]+$/
const UNTOUCHED_MS = 60 * 60_000

/** The folder an install into `prefix` writes before it is renamed to `prefix`; it names this process. */
export function partialInstallDir(prefix) {
  return `${prefix}.partial-${process.pid}-${Math.random().toString(36).slice(2)}`
}

/** Whether a process with this id runs on this machine (one that is not ours to signal still runs). */
function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/** The latest time an install changed `folder`, its node_modules or a folder there (ms); null when unreadable. */
function lastChangedMs(folder) {
  try {
    const modules = join(folder, 'node_modules')
    // A scope's folder (`@x`) changes when a package lands in it, so one level below node_modules is enough.
    const inside = readdirSync(modules, { withFileTypes: true }).filter((entry) => entry.isDirectory())
    const folders = [folder, modules, ...inside.map((entry) => join(modules, entry.name))]
    return Math.max(...folders.map((path) => statSync(path).mtimeMs))
  } catch (error) {
    if (error.code !== 'ENOENT') return null
    // Killed before npm made node_modules: the folder's own time.
    try {
      return statSync(folder).mtimeMs
    } catch {
      return null
    }
  }
}

/** Removes from `dir` the partial installs of processes that are gone, untouched for an hour; answers the names removed. */
export function removeAbandonedInstalls(dir, now = Date.now()) {
  let names
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const removed = []
  for (const name of names) {
    const match = PARTIAL.exec(name)
    if (match === null || isRunning(Number(match[1]))) continue
    const changed = lastChangedMs(join(dir, name))
    if (changed === null || now - changed < UNTOUCHED_MS) continue
    try {
      rmSync(join(dir, name), { recursive: true, force: true })
      removed.push(name)
    } catch {
      // Not ours to remove: the runner goes on, and so does the command it runs.
    }
  }
  return removed
}
