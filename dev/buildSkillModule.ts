// Writes SKILL.md's list of actions from the registry, then lib/docs/skillDocument.ts from SKILL.md: `npm run
// build:skill`. The skill document ships as code, so every bundler (Vercel's file tracing included) carries it with
// the function that serves it; a test checks both are current.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { AGENT_ACTIONS } from '../lib/deploy/actions/registry.js'
import { skillWithActions } from '../lib/docs/actionList.js'

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
  const skill = skillWithActions(readFileSync(`${ROOT}SKILL.md`, 'utf8'), AGENT_ACTIONS)
  writeFileSync(`${ROOT}SKILL.md`, skill)
  writeFileSync(SKILL_MODULE_PATH, renderSkillModule(skill))
  console.log('wrote the actions of SKILL.md from the registry, and lib/docs/skillDocument.ts from SKILL.md')
}
