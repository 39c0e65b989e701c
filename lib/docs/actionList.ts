import type { AgentAction } from '../deploy/actions/action.js'

// The agent actions as the documents list them: llms.txt's lines and the skill file's table are written from the
// registry here, so a new action is listed wherever the documents name actions (tests/deploy/actionRegistry.test.ts).

/** Where the skill file's generated list of actions starts; SKILL.md holds the block between the two markers. */
export const SKILL_ACTIONS_START = '<!-- actions: written from the registry by npm run build:skill; do not edit by hand -->'
/** Where that block ends. */
export const SKILL_ACTIONS_END = '<!-- /actions -->'

/** The skill file's table of actions: the body's `action`, its MCP tool and what it does. */
export function skillActionsTable(actions: readonly AgentAction[]): string {
  return [
    '| `action` | MCP tool | what it does |',
    '|---|---|---|',
    ...actions.map((action) => `| \`${action.name}\` | \`${action.tool.name}\` | ${action.summary.replaceAll('|', '\\|')} |`),
  ].join('\n')
}

/**
 * The skill file with its block of actions written for `actions` (the text between the markers replaced); a file
 * without the markers is answered as it is.
 */
export function skillWithActions(markdown: string, actions: readonly AgentAction[]): string {
  const start = markdown.indexOf(SKILL_ACTIONS_START)
  const end = markdown.indexOf(SKILL_ACTIONS_END)
  if (start < 0 || end < start) return markdown
  const head = markdown.slice(0, start + SKILL_ACTIONS_START.length)
  return `${head}\n${skillActionsTable(actions)}\n${markdown.slice(end)}`
}

/** llms.txt's lines for `POST /api/b20-skill`: one per action, its name and what it does. */
export function llmsActionLines(actions: readonly AgentAction[]): string[] {
  return [
    '- POST /api/b20-skill: the agent actions, told apart by action in the body, with the agent key in X-Service-Key:',
    ...actions.map((action) => `  - ${action.name}: ${action.summary}`),
  ]
}
