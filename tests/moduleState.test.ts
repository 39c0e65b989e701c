import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.js'

// lib/platform/perInstance.ts says it is the only module-level state in lib/: what an instance keeps lives on its
// services (or in what they build), or is built through perInstance. This grep keeps that true.

const ROOT = join(import.meta.dirname, '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/**
 * A module-level variable (`let`, `var`), or a module-level constant built with `new` (a Map, a Set, a WeakMap, an
 * LRUCache, any object that may keep what it is given), by a `create…` factory (a throttle, a store), or as an empty
 * `{}` / `[]` to fill later. A constant typed
 * `ReadonlySet`/`ReadonlyMap` is a table, not state: the compiler refuses to change it.
 */
const MODULE_STATE = /^(export )?(let|var) |^(export )?const \w+(?!: Readonly)(: [^=]+)? = (new \w|create\w*\(|\{\}|\[\])/

/** Module-level objects that keep nothing between calls, each with its reason. */
const ALLOWED: Record<string, string> = {
  'lib/platform/sse.ts: const encoder = new TextEncoder()': 'a TextEncoder keeps nothing between calls',
  'lib/payments/door/doorAnswers.ts: const paymentRequiredBuilder = new x402ResourceServer()':
    'built with no facilitator and no scheme, it only shapes a 402 body from what each call passes it',
}

describe('module-level state', () => {
  it('lives only in lib/platform/perInstance.ts', () => {
    const files = sourceFiles(join(ROOT, 'lib'))
    expect(files.length).toBeGreaterThan(50) // the scanner sees lib/
    const found = files.flatMap((path) => {
      const file = relative(ROOT, path)
      if (file === 'lib/platform/perInstance.ts') return []
      return readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((text) => (MODULE_STATE.test(text) ? [`${file}: ${text.replace(/[<(].*$/, '').trim()}`] : []))
    })
    // The pattern sees what it should: every allowed case is still there.
    for (const allowed of Object.keys(ALLOWED))
      expect(
        found.some((line) => allowed.startsWith(line)),
        allowed,
      ).toBe(true)
    expect(found.filter((line) => !Object.keys(ALLOWED).some((allowed) => allowed.startsWith(line)))).toEqual([])
  })

  it('is built afresh in each test file, though files share a worker', () => {
    // Files share a worker (isolate: false), so a module read once in one file would answer the next file too; the
    // first set-up file resets the module registry, so each file imports lib/ anew, as in a worker of its own.
    const test = config.test!
    expect(test.isolate).toBe(false)
    expect(test.setupFiles?.[0]).toBe('tests/support/freshModules.ts')
    expect(readFileSync(join(ROOT, 'tests/support/freshModules.ts'), 'utf8')).toMatch(/^vi\.resetModules\(\)$/m)
  })
})
