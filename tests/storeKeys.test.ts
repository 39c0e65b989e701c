import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// docs/architecture.md: each room's keys.ts names that room's store keys, and no other module builds one. A store key
// is written from the store's prefix (`STORE_KEY_PREFIX`) on: this walk finds every template string of lib/ that
// starts with a prefix and goes on with a key's text.

const ROOT = join(import.meta.dirname, '..')

/** Modules outside a keys.ts that write a key, each with its reason. */
const ALLOWED: Record<string, string> = {
  'lib/deploy/sender/nonceFence.ts':
    'the fence set under the fence prefix lib/deploy/keys.ts names for the signer: the script derives it, as it derives the counter’s floor',
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** Every `${…prefix}text…` template string of a file, as `file: template`. */
function keysWritten(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isTemplateExpression(node) && node.head.text === '') {
      const [first] = node.templateSpans
      if (first && /prefix\W*$/i.test(first.expression.getText(source)) && /^[a-z]/i.test(first.literal.text))
        found.push(`${relative(ROOT, path)}: ${node.getText(source)}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('store keys', () => {
  it('are written only in a room’s keys.ts', () => {
    const files = sourceFiles(join(ROOT, 'lib'))
    const written = files.flatMap(keysWritten)
    const inKeys = written.filter((line) => /\/keys\.ts: /.test(line))
    expect(inKeys.length).toBeGreaterThan(20) // the walk sees the keys where they are written
    const elsewhere = written.filter((line) => !/\/keys\.ts: /.test(line))
    for (const file of Object.keys(ALLOWED))
      expect(
        elsewhere.some((line) => line.startsWith(`${file}: `)),
        `${file} writes no key now: drop it from ALLOWED`,
      ).toBe(true)
    expect(elsewhere.filter((line) => !Object.keys(ALLOWED).some((file) => line.startsWith(`${file}: `)))).toEqual([])
  })
})
