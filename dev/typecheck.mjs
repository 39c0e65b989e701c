// `npm run typecheck`: the type check of the code (tsconfig.json) and of the dashboard's JSDoc-typed scripts
// (tsconfig.dashboard.json), with TypeScript 7, the compiler's native port: the same checks as TypeScript 5.9's `tsc`
// in about a third of the CPU (docs/testing.md). TypeScript 5.9 stays installed as `typescript` for what needs its
// JavaScript API: the guard tests that read the source's syntax tree, openapi-typescript, and the Vercel CLI's build,
// which compiles each function with the project's own `typescript`. Extra arguments go to both runs (`npm test` passes
// --singleThreaded: beside the suite's two workers, more threads only take turns on the same two cores).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const tsc = join(dirname(require.resolve('typescript-7/package.json')), 'bin', 'tsc')
const extra = process.argv.slice(2)

for (const project of ['tsconfig.json', 'tsconfig.dashboard.json']) {
  const { status } = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project, ...extra], { stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? 1)
}
