import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/**
 * lib/'s folders from the bottom layer up: a folder may import its own layer and the layers below it, never one above.
 * docs/architecture.md draws the same map.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['platform'],
  ['store'],
  ['upstream', 'chain'],
  ['market'],
  ['read', 'deploy'],
  ['tick', 'health', 'mcp', 'stream', 'payments', 'launches'],
  ['docs'],
]
/** Folders of one layer that must not import each other (two use cases stay apart). */
const APART: readonly (readonly [string, string])[] = [
  ['read', 'deploy'],
  ['upstream', 'chain'],
]

const layerOf = (folder: string) => LAYERS.findIndex((folders) => folders.includes(folder))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** Every `lib/<folder>/… -> lib/<folder>/…` import edge between two folders. */
function folderEdges(): { file: string; from: string; to: string }[] {
  const lib = join(ROOT, 'lib')
  return sourceFiles(lib).flatMap((file) => {
    const from = relative(lib, file).split('/')[0]!
    const specifiers = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.\/[^']+)'/g)].map((m) => m[1]!)
    return specifiers.map((specifier) => ({
      file: relative(ROOT, file),
      from,
      to: relative(lib, join(file, '..', specifier)).split('/')[0]!,
    }))
  })
}

/** The import circles of a file graph: each group of two or more files that reach each other (Tarjan's components). */
function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const circles: string[][] = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) visit(next)
      if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, low.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const group = stack.splice(stack.indexOf(file))
    if (group.length > 1) circles.push(group.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return circles
}

describe('lib/ layout', () => {
  it('has every folder in a layer and no file at its root', () => {
    const entries = readdirSync(join(ROOT, 'lib'), { withFileTypes: true })
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([])
    for (const folder of entries.map((e) => e.name)) expect(layerOf(folder), `lib/${folder} is in no layer`).toBeGreaterThanOrEqual(0)
  })

  it('imports only down or across the same layer, never up, and keeps the use cases apart', () => {
    const edges = folderEdges()
    expect(edges.length).toBeGreaterThan(20) // the scanner sees the imports
    const upward = edges.filter((e) => layerOf(e.to) > layerOf(e.from)).map((e) => `${e.file} -> ${e.to}`)
    expect(upward).toEqual([])
    const across = edges.filter((e) => APART.some(([a, b]) => (e.from === a && e.to === b) || (e.from === b && e.to === a)))
    expect(across.map((e) => `${e.file} -> ${e.to}`)).toEqual([])
  })

  it('runs imports inside lib/deploy/ one way: actions/ -> pipeline/ -> records/ -> sender/ -> webhooks/ -> agents/, keys.ts importing nothing', () => {
    const deploy = join(ROOT, 'lib', 'deploy')
    const ORDER = ['actions', 'pipeline', 'records', 'sender', 'webhooks', 'agents']
    const partOf = (path: string) => relative(deploy, path).split('/')[0]!
    const edges = sourceFiles(deploy).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)'/g)].map((m) => ({
        file: relative(ROOT, file),
        from: partOf(file),
        to: partOf(join(file, '..', m[1]!)),
      })),
    )
    const inside = edges.filter((e) => ORDER.includes(e.from) && ORDER.includes(e.to) && e.from !== e.to)
    expect(inside.length).toBeGreaterThan(3) // the scanner sees the imports
    const backward = inside.filter((e) => ORDER.indexOf(e.to) < ORDER.indexOf(e.from)).map((e) => `${e.file} -> ${e.to}/`)
    expect(backward).toEqual([])
    expect(edges.filter((e) => e.from === 'keys.ts').map((e) => e.file)).toEqual([])
  })

  it('has no import circle between files, type-only imports included (a circle hides which module is the lower one)', () => {
    const graph = new Map(
      [...sourceFiles(join(ROOT, 'lib')), ...sourceFiles(join(ROOT, 'api'))].map((file) => [
        file,
        [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)\.js'/g)].map((m) =>
          join(file, '..', `${m[1]}.ts`),
        ),
      ]),
    )
    expect([...graph.values()].flat().length).toBeGreaterThan(500) // the scanner sees the imports
    expect(importCircles(graph).map((circle) => circle.map((file) => relative(ROOT, file)).join(' -> '))).toEqual([])
  })

  it('keeps lib/market pure: no store, no log, no network, no clock of its own', () => {
    const market = sourceFiles(join(ROOT, 'lib', 'market'))
    for (const file of market) {
      const text = readFileSync(file, 'utf8')
      expect(text, relative(ROOT, file)).not.toMatch(/from '\.\.\/(store|platform|read|deploy)\/|\bfetch\(|node:/)
    }
  })
})

describe('one vocabulary', () => {
  const libFiles = () => sourceFiles(join(ROOT, 'lib')).map((file) => relative(ROOT, file))

  it('names a room’s HTTP face endpoint.ts, its OpenAPI declaration openapi.ts, its settings config.ts, and nothing else so', () => {
    const files = libFiles()
    expect(files.length).toBeGreaterThan(50) // the scanner sees lib/
    const retired = /\/(handler|endpoints|route|server|door|runtime|responses|source|textHandler|openapiHandler)\.ts$/
    expect(files.filter((file) => retired.test(file))).toEqual([])
    const misplaced = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const name = file.split('/').at(-1)
      const wrong: string[] = []
      // An endpoint factory of a feature lives in its room's endpoint.ts (platform's createEndpoint and the read
      // endpoints' shared frame are what they are built with).
      for (const m of text.matchAll(/^export function (create\w+Endpoint)\b/gm))
        if (name !== 'endpoint.ts' && !['createEndpoint', 'createCachedReadEndpoint'].includes(m[1]!)) wrong.push(`${file}: ${m[1]}`)
      for (const m of text.matchAll(/^export const (\w+): ZodOpenApiPathItemObject\b/gm))
        if (name !== 'openapi.ts' || !m[1]!.endsWith('OpenApi')) wrong.push(`${file}: ${m[1]}`)
      for (const m of text.matchAll(/^export function (load\w+Config)\b/gm)) if (name !== 'config.ts') wrong.push(`${file}: ${m[1]}`)
      return wrong
    })
    expect(misplaced).toEqual([])
    // One settings loader a side, in that side's config.ts; platform/config.ts keeps the shared parsing helpers.
    const loaders = files.filter((file) => /^export function load\w+Config\b/m.test(readFileSync(join(ROOT, file), 'utf8')))
    expect(loaders.every((file) => file.endsWith('/config.ts') && file !== 'lib/platform/config.ts')).toBe(true)
    expect(loaders.length).toBeGreaterThanOrEqual(7)
  })

  it('binds every api/ file the same way: export default create<X>Endpoint(instance<Room>Source), the documents on no side', () => {
    const api = join(ROOT, 'api')
    const files = sourceFiles(api).map((file) => relative(ROOT, file))
    expect(files.length).toBeGreaterThanOrEqual(15)
    const off = files.filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const bound = text.match(/^export default (create\w+Endpoint)\((instance\w+Source)?\)$/m)
      if (!bound) return true
      const [, factory, source] = bound
      const room = text.match(new RegExp(`^import \\{ ${factory} \\} from '(?:\\.\\./)+lib/(\\w+)/endpoint\\.js'$`, 'm'))?.[1]
      if (!room) return true
      if (!source) return room !== 'docs'
      return !new RegExp(`^import \\{ ${source} \\} from '(?:\\.\\./)+lib/\\w+/instance\\.js'$`, 'm').test(text)
    })
    expect(off).toEqual([])
  })

  it('cites in comments only what the repository holds: no issue numbers', () => {
    const cited = ['lib', 'tests', 'api', 'dev', 'bench'].flatMap((folder) =>
      sourceFiles(join(ROOT, folder))
        .filter((file) => /\bissue #?\d+/i.test(readFileSync(file, 'utf8')))
        .map((file) => relative(ROOT, file)),
    )
    expect(cited).toEqual([])
  })
})
