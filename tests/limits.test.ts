import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The house's limits: a function of at most 100 lines, a file of lib/ of at most 300. Past them a function, or a
// module, holds more than one concern. (tests/dashboard/layout.test.ts holds the 300 lines of the dashboard's scripts.)

const ROOT = join(import.meta.dirname, '..')
const MAX_FUNCTION_LINES = 100
const MAX_FILE_LINES = 300

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** The name a function goes by: its own, the variable, property or method it is assigned to, or `(anonymous)`. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source)
  const parent = node.parent
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return parent.name.getText(source)
  return '(anonymous)'
}

/**
 * Every function of a file with a body (declarations, arrow functions and function expressions, methods, accessors,
 * constructors), as `file: outer › inner` with its length, first line to last.
 */
function functionLengths(path: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const file = relative(ROOT, path)
  const found: { name: string; lines: number }[] = []
  const visit = (node: ts.Node, outer: string) => {
    let inside = outer
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      inside = outer ? `${outer} › ${nameOf(node, source)}` : nameOf(node, source)
      found.push({ name: `${file}: ${inside}`, lines: end - start + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, inside))
  }
  visit(source, '')
  return found
}

describe('the house’s limits', () => {
  it(`keeps every function of lib/, api/ and dev/ to ${MAX_FUNCTION_LINES} lines`, () => {
    const functions = ['lib', 'api', 'dev'].flatMap((folder) => sourceFiles(join(ROOT, folder))).flatMap(functionLengths)
    expect(functions.length).toBeGreaterThan(1000) // the walk sees the functions
    expect(Math.max(...functions.map((f) => f.lines))).toBeGreaterThan(50) // and measures them
    const over = functions.filter((f) => f.lines > MAX_FUNCTION_LINES)
    expect(over.map((f) => `${f.name} (${f.lines})`)).toEqual([])
  })

  it(`keeps every file of lib/ to ${MAX_FILE_LINES} lines`, () => {
    const files = sourceFiles(join(ROOT, 'lib')).map((path) => ({ file: relative(ROOT, path), lines: linesOf(readFileSync(path, 'utf8')) }))
    expect(files.length).toBeGreaterThan(50) // the scan sees lib/
    const over = files.filter((f) => f.lines > MAX_FILE_LINES)
    expect(over.map((f) => `${f.file} (${f.lines})`)).toEqual([])
  })
})
