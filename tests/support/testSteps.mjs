// `npm test`'s steps, on the Node the runner chose: the prerequisites (tests/support/ensurePrerequisites.mjs), then
// vitest, with the static checks (Biome, then the type check of the code and of the dashboard's scripts,
// dev/typecheck.mjs) running beside both. The type check runs on one thread (--singleThreaded): beside the suite's two
// workers the machine's cores are busy, and its parallel checkers would only take turns on them, each redoing part of
// the work.
// Their output is held and printed after vitest's, each under its own heading, so neither breaks into the other.
// Arguments go to vitest (`npm test -- tests/read`). Exits 0 only when every step passed.
import { spawn } from 'node:child_process'

/** Runs a command; `held` keeps its output for later instead of printing it. Resolves with its exit code. */
function run(command, args, { held = false } = {}) {
  const child = spawn(command, args, { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
  const output = []
  if (held) {
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
  }
  const done = new Promise((resolve) => {
    child.on('error', (error) => {
      output.push(Buffer.from(`${command}: ${error.message}\n`))
      resolve(127)
    })
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
  })
  return { child, done, output: () => Buffer.concat(output).toString() }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const lint = run(npm, ['run', '--silent', 'lint'], { held: true })
const typecheck = run(npm, ['run', '--silent', 'typecheck', '--', '--singleThreaded'], { held: true })
const stopStatic = () => {
  for (const step of [lint, typecheck]) step.child.kill('SIGTERM')
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    stopStatic()
    process.exit(130)
  })

const prerequisites = await run(process.execPath, ['tests/support/ensurePrerequisites.mjs']).done
if (prerequisites !== 0) {
  stopStatic()
  process.exit(prerequisites)
}
// Node's compile cache for the workers and every Node the tests start (dev/typeScriptImports.mjs turns it on for the
// npm scripts, in the same folder): each process then skips compiling what an earlier one compiled.
process.env.NODE_COMPILE_CACHE ??= new URL('../../.cache/node-compile-cache', import.meta.url).pathname
const suite = await run('node_modules/.bin/vitest', ['run', ...process.argv.slice(2)]).done
const checks = [
  ['lint (Biome)', await lint.done, lint.output()],
  ['typecheck (TypeScript 7)', await typecheck.done, typecheck.output()],
]
for (const [name, code, output] of checks) {
  if (code === 0) console.log(`${name}: passed`)
  else console.error(`\n${name} FAILED (exit ${code}):\n${output.trim()}`)
}
process.exit(suite !== 0 ? suite : checks.some(([, code]) => code !== 0) ? 1 : 0)
