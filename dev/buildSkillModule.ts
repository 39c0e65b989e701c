// Writes lib/docs/skillDocument.ts from SKILL.md: `npm run build:skill`. The skill document ships as code, so every bundler
// (Vercel's file tracing included) carries it with the function that serves it; a test checks the module is current.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Path of the generated module. */
export const SKILL_MODULE_PATH = `${ROOT}lib/docs/skillDocument.ts`

/** The TypeScript source of lib/docs/skillDocument.ts for the given SKILL.md text. */
export function renderSkillModule(markdown: string): string {
  return [
    '// Generated from SKILL.md by `npm run build:skill`; do not edit by hand (a test checks it is current).',
    '',
    '/** SKILL.md, the agent skill file served at /skill.md, byte for byte. */',
    `export const SKILL_DOCUMENT: string = ${JSON.stringify(markdown)}`,
    '',
  ].join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SKILL_MODULE_PATH, renderSkillModule(readFileSync(`${ROOT}SKILL.md`, 'utf8')))
  console.log('wrote lib/docs/skillDocument.ts from SKILL.md')
}
