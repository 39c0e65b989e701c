// Where the project keeps what it fetches from the npm registry once per machine rather than once per clone: Node 24
// for the runner (dev/onSupportedNode.mjs) and the Vercel CLI of the build test (tests/support/vercelBuild.ts). That is
// the user's cache folder, as other tools that fetch a runtime keep theirs, so a second clone (CI checks out a clean one
// each run) finds both in place. Plain JavaScript that any Node runs, as the runner is.
import { accessSync, constants, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * `$XDG_CACHE_HOME/base-control-room` (`~/.cache/base-control-room` without it), created if missing; the clone's own
 * `.cache/` (`projectRoot` is the clone) when that folder cannot be made or written.
 */
export function machineCacheDir(projectRoot) {
  try {
    const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'base-control-room')
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return dir
  } catch {
    return join(projectRoot, '.cache')
  }
}
