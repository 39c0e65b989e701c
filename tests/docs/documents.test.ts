import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

describe('the documents', () => {
  it('README.md fits on a few screens (at most 200 lines) and holds the two set-up commands', () => {
    const readme = read('README.md')
    expect(readme.split('\n').length).toBeLessThanOrEqual(200)
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm ci && npm test')
  })

  it('has docs/api.md, operations.md, architecture.md and benchmarks.md (with the section npm run bench writes)', () => {
    for (const name of ['api', 'operations', 'architecture', 'benchmarks']) expect(existsSync(join(ROOT, 'docs', `${name}.md`))).toBe(true)
    expect(read('docs/benchmarks.md')).toMatch(/<!-- bench:start[\s\S]*<!-- bench:end -->/)
  })

  it.each(DOCUMENTS)('%s: every relative link reaches a file, and every #anchor a heading in it', (document) => {
    const broken: string[] = []
    const links = [...read(document).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/.test(href))
    for (const href of links) {
      const [path, anchor] = href.split('#') as [string, string | undefined]
      const target = path ? join(dirname(document), path) : document
      if (!existsSync(join(ROOT, target))) {
        broken.push(href)
        continue
      }
      if (anchor && target.endsWith('.md')) {
        const headings = [...read(target).matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!))
        if (!headings.includes(anchor)) broken.push(href)
      }
    }
    if (document === 'README.md') expect(links.length).toBeGreaterThan(5) // the scan finds links
    expect(broken).toEqual([])
  })

  it('names every variable the configuration reads (lib/platform/config.ts, lib/deploy/config.ts, lib/payments/config.ts, lib/launches/config.ts), in README.md and in docs/operations.md', () => {
    const sources =
      read('lib/platform/config.ts') + read('lib/deploy/config.ts') + read('lib/payments/config.ts') + read('lib/launches/config.ts')
    const parsed = [...sources.matchAll(/^\s+([A-Z][A-Z0-9_]{3,}):/gm)].map((m) => m[1]!)
    expect(parsed).toContain('DEPLOY_ALLOWLIST') // the scan sees the schema
    expect(parsed).toContain('X402_PAYER_DAILY_CAP')
    const platformSet = new Set(['VERCEL', 'AWS_DEFAULT_REGION']) // set by the platform, or an alias the SDK reads
    const operations = read('docs/operations.md')
    const readme = read('README.md')
    // README's table abbreviates a pair as `X_URL`, `_TOKEN`: the stem is what it names.
    const inReadme = (name: string) => readme.includes(name) || readme.includes(`\`_${name.split('_').at(-1)}\``)
    expect(parsed.filter((name) => !platformSet.has(name) && !operations.includes(name))).toEqual([])
    expect(parsed.filter((name) => !platformSet.has(name) && !inReadme(name))).toEqual([])
  })

  it('lists each variable in one row of README.md’s configuration table, not two', () => {
    const rows = read('README.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
    const named = rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]{3,})`/g)].map((m) => m[1]!))
    expect(named).toContain('UNISWAP_V4_POOL_MANAGER') // the scan sees the table
    expect(named.filter((name, index) => named.indexOf(name) !== index)).toEqual([])
  })
})
