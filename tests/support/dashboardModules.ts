import { readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

const PUBLIC = join(import.meta.dirname, '..', '..', 'public')

/** Every module public/app.js loads, directly or through another, as paths under public/ (`modules/data.js`). */
export function dashboardModules(entry = 'app.js'): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    const source = readFileSync(join(PUBLIC, file), 'utf8')
    for (const [, specifier] of source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)) {
      const target = normalize(join(dirname(file), specifier!))
      if (seen.has(target)) continue
      seen.add(target)
      visit(target)
    }
  }
  visit(entry)
  return [...seen].sort()
}

/** The modules public/index.html preloads (`<link rel="modulepreload" href="/…">`), as paths under public/. */
export function preloadedModules(): string[] {
  const html = readFileSync(join(PUBLIC, 'index.html'), 'utf8')
  return [...html.matchAll(/<link rel="modulepreload" href="\/([^"]+)">/g)].map((m) => m[1]!).sort()
}
