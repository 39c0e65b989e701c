import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../lib/store/memory.js'
import { defineScript, UndeclaredKeyError } from '../../lib/store/types.js'

const ROOT = join(import.meta.dirname, '..', '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** Every `defineScript({ name, … })` in lib/, with its name as written (null when it is not a plain string). */
function definedScripts(): { file: string; name: string | null }[] {
  return sourceFiles(join(ROOT, 'lib')).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const found: { file: string; name: string | null }[] = []
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineScript') {
        const [definition] = node.arguments
        const property =
          definition && ts.isObjectLiteralExpression(definition)
            ? definition.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(source) === 'name')
            : undefined
        const value = property && ts.isPropertyAssignment(property) ? property.initializer : undefined
        found.push({ file: relative(ROOT, file), name: value && ts.isStringLiteral(value) ? value.text : null })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    return found
  })
}

describe('the store scripts', () => {
  it('each have a name of their own, written out, so a failure log says which one failed', () => {
    const scripts = definedScripts()
    expect(scripts.length).toBeGreaterThanOrEqual(9) // the scanner sees them
    expect(scripts.filter((s) => s.name === null)).toEqual([])
    const names = scripts.map((s) => s.name)
    const repeated = scripts.filter((s) => names.indexOf(s.name) !== names.lastIndexOf(s.name))
    expect(repeated).toEqual([])
  })

  it('touch only the keys they name in KEYS, as Redis Cluster requires: the in-process store refuses any other', async () => {
    const store = createMemoryStore()
    await store.set('elsewhere', 'x', 10_000)
    const reachesOut = defineScript<string | null>({
      name: 'test reaches out',
      lua: `return redis.call('GET', ARGV[1])`,
      inProcess: (data, _keys, [key]) => data.get(key!),
    })
    await expect(store.run(reachesOut, ['named'], ['elsewhere'])).rejects.toThrow(UndeclaredKeyError)
    await expect(store.run(reachesOut, ['elsewhere'], ['elsewhere'])).resolves.toBe('x')
  })
})
