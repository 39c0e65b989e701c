import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.js'

// lib/platform/perInstance.ts says it is the only module-level state in lib/: what an instance keeps lives on its
// services (or in what they build), or is built through perInstance. This walk keeps that true: it follows what a
// module runs when it loads, through the calls it makes into lib/, and names every object built on the way that may
// keep state.

const ROOT = join(import.meta.dirname, '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** The house's places for what an instance builds once: their argument runs later, on the first call, not at load. */
const BUILT_ON_FIRST_CALL = new Set(['perInstance', 'perInstanceAsync', 'onFirstCall'])

/** Array methods that run the callback they are handed now: the callback's body is walked as if inline. */
const RUNS_CALLBACK_NOW = new Set(['map', 'flatMap', 'filter', 'forEach', 'reduce', 'some', 'every', 'find', 'findIndex', 'sort'])

/** A collection built to be filled later: behind perInstance it is a module-level registry all the same. */
const FILLED_LATER = /^new (Set|Map|WeakMap|WeakSet|Array)\b|^\[\]$|^\{\}$/

/** Factories from outside lib/ whose product keeps nothing of this module's, each with its reason. */
const STATELESS_FACTORIES: Record<string, string> = {
  createRequire: "node's require, over the process's own module cache: it keeps nothing of this module's",
}

/** Classes whose instances keep nothing between calls, each with its reason. */
const STATELESS_CLASSES: Record<string, string> = {
  TextEncoder: 'encodes what each call passes it',
  x402ResourceServer: 'built with no facilitator and no scheme, it only shapes a 402 body from what each call passes it',
}

/**
 * What a module may build at load that the walk would otherwise name, each with its reason. Keys are `file: trail`,
 * as the walk reports them.
 */
const ALLOWED: Record<string, string> = {}

/**
 * What an api/ module's endpoint may build when it loads, by the walk's last step: none of it keeps anything of an
 * instance past it, each for its reason.
 */
const KEEPS_NOTHING_OF_AN_INSTANCE: Record<string, string> = {
  'createEndpoint() > new Hono': 'its routes and middleware, fixed when it is built; nothing of a request stays on it',
  'createAnswerHeadersMemo() > let last':
    'the headers of the cache entry it answered last, matched by that entry itself: another instance’s entries are other objects',
  'new WeakMap': 'keyed by objects of an instance (its read services, its cached bodies): another instance’s are other keys',
}

type Module = {
  file: string
  source: ts.SourceFile
  /** Top-level functions by name: `function f`, `const f = () =>`. */
  functions: Map<string, ts.FunctionLikeDeclaration>
  /** Imported or re-exported names: local name -> the lib/ file and its name there. */
  imports: Map<string, { file: string; name: string }>
}

function readModule(path: string): Module {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const functions = new Map<string, ts.FunctionLikeDeclaration>()
  const imports = new Map<string, { file: string; name: string }>()
  const target = (specifier: ts.Expression) => {
    const text = (specifier as ts.StringLiteral).text
    return text.startsWith('.') ? relative(ROOT, join(path, '..', text.replace(/\.js$/, '.ts'))) : undefined
  }
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && statement.body) functions.set(statement.name.text, statement)
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer
        if (ts.isIdentifier(declaration.name) && value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)))
          functions.set(declaration.name.text, value)
      }
    const bindings =
      ts.isImportDeclaration(statement) && statement.importClause?.namedBindings && ts.isNamedImports(statement.importClause.namedBindings)
        ? { from: statement.moduleSpecifier, elements: statement.importClause.namedBindings.elements }
        : ts.isExportDeclaration(statement) &&
            statement.moduleSpecifier &&
            statement.exportClause &&
            ts.isNamedExports(statement.exportClause)
          ? { from: statement.moduleSpecifier, elements: statement.exportClause.elements }
          : undefined
    const file = bindings && target(bindings.from)
    if (bindings && file)
      for (const element of bindings.elements)
        imports.set(element.name.text, { file, name: (element.propertyName ?? element.name).getText(source) })
  }
  return { file: relative(ROOT, path), source, functions, imports }
}

/** The callee's name as written (`createX`, `z.object`, `new Map`'s `Map`), without type arguments. */
const calleeName = (expression: ts.Expression, source: ts.SourceFile) =>
  ts.isIdentifier(expression)
    ? expression.text
    : ts.isPropertyAccessExpression(expression)
      ? expression.name.text
      : expression.getText(source)

/**
 * Every object that loading the modules of `dirs` builds and that may keep state, as `file: declaration > call > …`;
 * calls into a module of any of them are followed.
 */
function stateBuiltAtLoad(...dirs: string[]): { found: string[]; files: number } {
  const modules = new Map(dirs.flatMap(sourceFiles).map((path) => [relative(ROOT, path), readModule(path)]))
  const found: string[] = []

  /** Finds the function `name` as module `file` sees it, through imports and re-exports. */
  const resolve = (file: string, name: string, seen = 0): { module: Module; fn: ts.FunctionLikeDeclaration } | undefined => {
    const module = modules.get(file)
    if (!module || seen > 8) return undefined
    const fn = module.functions.get(name)
    if (fn) return { module, fn }
    const imported = module.imports.get(name)
    return imported && resolve(imported.file, imported.name, seen + 1)
  }

  /** Walks what runs now: not the bodies of functions it defines, which run later (or never). */
  const walk = (node: ts.Node, module: Module, trail: string, entered: ReadonlySet<ts.Node>): void => {
    if (ts.isFunctionLike(node)) return
    if (ts.isNewExpression(node)) {
      const name = calleeName(node.expression, module.source)
      // A pattern keeps a lastIndex only with the g or y flag.
      const pattern = name === 'RegExp' && !/[gy]/.test(node.arguments?.[1]?.getText(module.source) ?? '')
      if (!(name in STATELESS_CLASSES) && !pattern) found.push(`${trail} > new ${name}`)
    }
    if (ts.isCallExpression(node)) {
      const name = calleeName(node.expression, module.source)
      const resolved = ts.isIdentifier(node.expression) ? resolve(module.file, name) : undefined
      if (BUILT_ON_FIRST_CALL.has(name)) {
        const [build] = node.arguments
        if (build && ts.isArrowFunction(build) && FILLED_LATER.test(build.body.getText(module.source).replace(/^\(|\)$/g, '')))
          found.push(`${trail} > ${name}(${build.body.getText(module.source).replace(/[<(].*$/, '')})`)
        for (const argument of node.arguments) walk(argument, module, trail, entered)
        return
      }
      if (RUNS_CALLBACK_NOW.has(name))
        for (const argument of node.arguments)
          if (ts.isArrowFunction(argument) || ts.isFunctionExpression(argument)) walkBody(argument, module, trail, entered)
      if (resolved && !entered.has(resolved.fn))
        walkBody(resolved.fn, resolved.module, `${trail} > ${name}()`, new Set([...entered, resolved.fn]))
      // A factory outside lib/ cannot be looked into: its name says it builds something.
      else if (!resolved && !(name in STATELESS_FACTORIES) && /^(create|make|build|start|open|connect)[A-Z]\w*$/.test(name))
        found.push(`${trail} > ${name}()`)
    }
    ts.forEachChild(node, (child) => walk(child, module, trail, entered))
  }

  /** Walks a function's body as it runs when called: a `let` a closure of it captures is state it hands back. */
  const walkBody = (fn: ts.FunctionLikeDeclaration, module: Module, trail: string, entered: ReadonlySet<ts.Node>) => {
    if (!fn.body) return
    if (!ts.isBlock(fn.body)) return walk(fn.body, module, trail, entered)
    for (const statement of fn.body.statements) {
      if (ts.isVariableStatement(statement) && !(statement.declarationList.flags & ts.NodeFlags.Const)) {
        const names = statement.declarationList.declarations.map((d) => d.name.getText(module.source))
        const closures: ts.Node[] = []
        const collect = (node: ts.Node): void => {
          if (ts.isFunctionLike(node)) closures.push(node)
          else ts.forEachChild(node, collect)
        }
        ts.forEachChild(fn.body, collect)
        const captured = names.filter((name) =>
          closures.some((closure) => new RegExp(`\\b${name}\\b`).test(closure.getText(module.source))),
        )
        for (const name of captured) found.push(`${trail} > let ${name}`)
      }
      walk(statement, module, trail, entered)
    }
  }

  for (const module of modules.values()) {
    if (module.file === 'lib/platform/perInstance.ts') continue
    for (const statement of module.source.statements) {
      if (ts.isVariableStatement(statement)) {
        const mutable = !(statement.declarationList.flags & ts.NodeFlags.Const)
        for (const declaration of statement.declarationList.declarations) {
          const name = declaration.name.getText(module.source)
          const trail = `${module.file}: ${name}`
          if (mutable) found.push(`${module.file}: let ${name}`)
          // A constant typed ReadonlySet/ReadonlyMap is a table, not state: the compiler refuses to change it.
          if (declaration.type && /^Readonly(Set|Map)</.test(declaration.type.getText(module.source))) continue
          const value = declaration.initializer
          // An empty `{}` or `[]` at module level is only ever there to be filled.
          if (
            value &&
            ((ts.isObjectLiteralExpression(value) && value.properties.length === 0) ||
              (ts.isArrayLiteralExpression(value) && value.elements.length === 0))
          )
            found.push(`${trail} = empty`)
          if (value) walk(value, module, trail, new Set())
        }
      } else if (!ts.isFunctionDeclaration(statement) && !ts.isImportDeclaration(statement)) walk(statement, module, module.file, new Set())
    }
  }
  return { found: [...new Set(found)], files: modules.size }
}

describe('module-level state', () => {
  it('lives only in lib/platform/perInstance.ts: nothing else in lib/ builds, when it loads, an object that keeps state', () => {
    const { found, files } = stateBuiltAtLoad(join(ROOT, 'lib'))
    expect(files).toBeGreaterThan(50) // the walk sees lib/
    // Every allowed case is still there: an entry whose case went away goes with it.
    for (const allowed of Object.keys(ALLOWED)) expect(found, allowed).toContain(allowed)
    expect(found.filter((line) => !(line in ALLOWED))).toEqual([])
  })

  it('is named by the walk in each of its shapes, and only then (tests/fixtures/moduleState)', () => {
    const file = 'tests/fixtures/moduleState/state.ts'
    expect(stateBuiltAtLoad(join(ROOT, 'tests/fixtures/moduleState')).found).toEqual([
      `${file}: let hits`,
      `${file}: seen > new Map`,
      `${file}: counter > makeCounter() > let count`,
      `${file}: registry > perInstance(new Set)`,
    ])
  })

  it('keeps nothing past its instance in what an api/ module builds when it loads', () => {
    // Each api/ module builds its endpoint when it loads, once per process: a deployment's instance, or a test worker,
    // whose files are each an instance of their own (the next case). What an endpoint builds then may only be what
    // keeps nothing of an instance, each for its reason below; whatever else it keeps goes through perInstance.
    const { found } = stateBuiltAtLoad(join(ROOT, 'api'), join(ROOT, 'lib'))
    const built = found.filter((line) => line.startsWith('api/'))
    expect(built.length).toBeGreaterThan(10) // the walk sees every endpoint's router
    expect(built.filter((line) => !Object.keys(KEEPS_NOTHING_OF_AN_INSTANCE).some((step) => line.endsWith(step)))).toEqual([])
  })

  it('begins a new instance in each test file, though files share a worker and its modules', () => {
    // Files share a worker (isolate: false) and the modules it loaded, so what one file's instance built would answer
    // the next file too; the first set-up file begins a new instance, so every perInstance memo builds anew.
    const test = config.test!
    expect(test.isolate).toBe(false)
    expect(test.setupFiles?.[0]).toBe('tests/support/newInstance.ts')
    expect(readFileSync(join(ROOT, 'tests/support/newInstance.ts'), 'utf8')).toMatch(/^startNewInstance\(\)$/m)
    // Only the suite begins one: a deployment's process is one instance for its whole life.
    const callers = ['api', 'lib', 'dev']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .filter((file) => /(?<!function )\bstartNewInstance\(\)(?!:)/.test(readFileSync(file, 'utf8')))
    expect(callers.map((file) => relative(ROOT, file))).toEqual([])
  })
})
