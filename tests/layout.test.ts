import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/**
 * lib/'s folders from the bottom layer up: a folder may import its own layer and the layers below it, never one above.
 * docs/architecture.md draws the same map. lib/launches sits above read and deploy: a launch is born of a deploy record
 * and served through the read cache. The deploy side announces a confirmed deploy through the hook it is handed
 * (lib/launches/instance.ts builds this instance's deploy side with it); what the lower rooms read of a launch is kept
 * under their own keys (its DexScreener market: lib/deploy/keys.ts; its pool's: lib/read/keys.ts) in pure shapes of
 * lib/market. Neither imports anything of lib/launches.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['platform'],
  ['store'],
  ['upstream', 'chain'],
  ['market'],
  ['read', 'deploy'],
  ['launches'],
  ['tick', 'health', 'mcp', 'stream', 'payments'],
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

  it('runs imports one way inside every room: the files and sub-folders of a folder of lib/ import each other in no circle', () => {
    // A circle between a folder's children (records/ -> services.ts -> pipeline/ -> records/, say) is an arrow that
    // runs back up inside a room even where no two files import each other. lib/'s own rooms are held by the layers
    // above.
    const lib = join(ROOT, 'lib')
    const edges = sourceFiles(lib).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)\.js'/g)].map(
        (m) => [file, join(file, '..', `${m[1]}.ts`)] as const,
      ),
    )
    const folders = new Set(
      sourceFiles(lib).flatMap((file) => {
        const parts = relative(lib, file).split('/').slice(0, -1)
        return parts.map((_, i) => join(lib, ...parts.slice(0, i + 1)))
      }),
    )
    const circles = [...folders].flatMap((folder) => {
      const childOf = (path: string) => (path.startsWith(`${folder}/`) ? relative(folder, path).split('/')[0]! : null)
      const graph = new Map<string, string[]>()
      for (const [from, to] of edges) {
        const [a, b] = [childOf(from), childOf(to)]
        if (a && b && a !== b) graph.set(a, [...(graph.get(a) ?? []), b])
      }
      for (const targets of [...graph.values()]) for (const target of targets) if (!graph.has(target)) graph.set(target, [])
      return importCircles(graph).map((circle) => `${relative(ROOT, folder)}: ${circle.join(' <-> ')}`)
    })
    expect(circles).toEqual([])
  })

  it('has the paid door pick and check a body only through the agent actions’ registry, as every door does', () => {
    const payments = sourceFiles(join(ROOT, 'lib', 'payments')).map((file) => [relative(ROOT, file), readFileSync(file, 'utf8')] as const)
    const door = payments.find(([file]) => file === 'lib/payments/endpoint.ts')![1]
    expect(door).toMatch(/\bpickAgentAction\(/)
    expect(door).toMatch(/\baction\.check\(/)
    // No module of the room reads a request with an action's own check or parses a body itself (the action's schemas
    // are only declared there: OpenAPI and the Bazaar's input schema).
    const parsesItself =
      /\b(checkDeployRequest|checkBody)\(|\b(agentDeploySchema|receiptRequestSchema|paidDeployRequestSchema)\.(safeParse|parse)\(/
    const own = payments.filter(([, text]) => parsesItself.test(text))
    expect(own.map(([file]) => file)).toEqual([])
  })

  it('keeps lib/market pure: of lib/ it imports only the upstream’s wire shapes, themselves pure; no network, no node:', () => {
    // The upstream's wire shapes: zod schemas and constants of what DexScreener and GeckoTerminal answer, no client.
    const WIRE_SHAPES = ['upstream/pair.ts', 'upstream/fields.ts', 'upstream/geckoOhlcv.ts']
    const libImports = (file: string) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)\.js'/g)].map((m) =>
        relative(join(ROOT, 'lib'), join(file, '..', `${m[1]}.ts`)),
      )
    const market = sourceFiles(join(ROOT, 'lib', 'market'))
    expect(market.length).toBeGreaterThan(5)
    for (const file of market) {
      expect(readFileSync(file, 'utf8'), relative(ROOT, file)).not.toMatch(/\bfetch\(|node:/)
      const outside = libImports(file).filter((path) => !path.startsWith('market/') && !WIRE_SHAPES.includes(path))
      expect(outside, relative(ROOT, file)).toEqual([])
    }
    for (const shape of WIRE_SHAPES) {
      const file = join(ROOT, 'lib', shape)
      expect(readFileSync(file, 'utf8'), shape).not.toMatch(/\bfetch\(|node:/)
      expect(
        libImports(file).filter((path) => !WIRE_SHAPES.includes(path)),
        shape,
      ).toEqual([])
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

  it('gives no two files in lib/ one name, but for the words every room uses for the same kind of file', () => {
    // One word per kind of file, the same in every room: its HTTP face, OpenAPI declaration, settings, per-instance
    // source, store keys, services, answer schemas, error classes, shared types, the heavy half it loads on demand,
    // and the jobs it gives the tick.
    const ROOM_WORDS = [
      'endpoint.ts',
      'openapi.ts',
      'config.ts',
      'instance.ts',
      'keys.ts',
      'services.ts',
      'schema.ts',
      'errors.ts',
      'types.ts',
      'tickJobs.ts',
    ]
    const byName = new Map<string, string[]>()
    for (const file of libFiles()) {
      const name = file.split('/').at(-1)!
      byName.set(name, [...(byName.get(name) ?? []), file])
    }
    expect(byName.size).toBeGreaterThan(100) // the scanner sees lib/
    const repeated = [...byName].filter(([name, files]) => files.length > 1 && !ROOM_WORDS.includes(name))
    expect(repeated).toEqual([])
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
