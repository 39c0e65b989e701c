// Where the project keeps what it fetches from the npm registry once per machine rather than once per clone: Node 24
// for the runner (dev/onSupportedNode.mjs) and the Vercel CLI of the build test (tests/support/vercelBuild.ts). That is
// the user's cache folder, as other tools that fetch a runtime keep theirs, so a second clone (CI checks out a clean one
// each run) finds both in place. Plain JavaScript that any Node runs, as the runner is.
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
// machine's folder. A folder is left alone while its process runs, or while it changed in the last ten minutes (a
// process in another container that shares the folder has an id this one cannot see).
const PARTIAL = /\.partial-(\d+)-[a-z0-9]+$/
const UNTOUCHED_MS = 10 * 60_000

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

/** Removes from `dir` the partial installs of processes that are gone, untouched for ten minutes; answers their names. */
export function removeAbandonedInstalls(dir, now = Date.now()) {
  let names
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const abandoned = names.filter((name) => {
    const match = PARTIAL.exec(name)
    if (match === null || isRunning(Number(match[1]))) return false
    try {
      return now - statSync(join(dir, name)).mtimeMs >= UNTOUCHED_MS
    } catch {
      return false
    }
  })
  for (const name of abandoned) rmSync(join(dir, name), { recursive: true, force: true })
  return abandoned
}
