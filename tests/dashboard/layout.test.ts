import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const PUBLIC = join(ROOT, 'public')
/** The most lines a dashboard script may have: past it, a script holds more than one concern. */
const MAX_LINES = 300
/** The one script that holds the page's state (docs/architecture.md says so). */
const STATE = 'modules/state.js'

/** The dashboard's own scripts, as paths under public/ (public/vendor/ holds a library as its package ships it). */
function scripts(dir = PUBLIC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return relative(PUBLIC, path) === 'vendor' ? [] : scripts(path)
    return /\.m?js$/.test(entry.name) ? [relative(PUBLIC, path)] : []
  })
}

const linesOf = (source: string) => source.split('\n').length - (source.endsWith('\n') ? 1 : 0)

/**
 * A script's module-level variables (`let`/`var`), and its module-level constants that hold an object the page changes
 * (a lower-case name bound to `{…}`, `[…]` or `new …`; an UPPER_CASE name is a fixed table). Biome's formatting puts
 * every top-level statement at the start of a line, and nothing inside a function there.
 */
function moduleState(source: string): string[] {
  const variables = [...source.matchAll(/^(?:export )?(?:let|var) (\w+)/gm)].map((m) => m[1]!)
  const objects = [...source.matchAll(/^(?:export )?const ([a-z]\w*) = (?:\/\*\*[^\n]*?\*\/ \()?(?:\{|\[|new )/gm)].map((m) => m[1]!)
  return [...variables, ...objects]
}

describe('the dashboard’s scripts', () => {
  it(`are each at most ${MAX_LINES} lines (one concern a script)`, () => {
    const all = scripts()
    expect(all).toContain('app.js') // the scan sees the scripts
    expect(all).toContain(STATE)
    const long = all
      .map((file) => ({ file, lines: linesOf(readFileSync(join(PUBLIC, file), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
    expect(long).toEqual([])
  })

  it(`keep the page’s state in ${STATE}: no other script has a module-level variable or changing object`, () => {
    const all = scripts()
    expect(moduleState(readFileSync(join(PUBLIC, STATE), 'utf8'))).toContain('state') // the scan sees a declaration
    const elsewhere = all
      .filter((file) => file !== STATE)
      .flatMap((file) => moduleState(readFileSync(join(PUBLIC, file), 'utf8')).map((name) => `${file}: ${name}`))
    expect(elsewhere).toEqual([])
  })

  it('are each named in docs/architecture.md, wherever it lists the modules', () => {
    const modules = readdirSync(join(PUBLIC, 'modules'))
      .map((name) => name.replace(/\.js$/, ''))
      .sort()
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
    // The map of the tree beside lib/, and the Dashboard section.
    const lists = [/`app\.js` and `modules\/`: ([^)]*)\)/, /ES modules in `public\/modules\/`\s*\(([\s\S]*?)\): no framework/].map(
      (pattern) => pattern.exec(doc)?.[1] ?? '',
    )
    for (const list of lists) expect([...list.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual(modules)
  })
})
