// Where the project keeps what it fetches from the npm registry once per machine rather than once per clone: Node 24
// for the runner (dev/onSupportedNode.mjs) and the Vercel CLI of the build test (tests/support/vercelBuild.ts). That is
// the user's cache folder, as other tools that fetch a runtime keep theirs, so a second clone (CI checks out a clean one
// each run) finds both in place. Plain JavaScript that any Node runs, as the runner is.
import { accessSync, constants, mkdirSync } from 'node:fs'
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
