import { createConfig, lintFromString } from '@redocly/openapi-core'

/** One finding of a linter: its rule, how severe, what it says and where. */
export type LintProblem = { rule: string; severity: 'error' | 'warning' | 'info'; message: string; at: string }

/**
 * Rules Redocly's `recommended` leaves off that Spectral's `spectral:oas` holds (a contact in `info`, a description on
 * every operation, every operation's tag declared): on, so the one linter holds what both did. Spectral itself was 126
 * of the install's 572 packages and 8 s of a fresh `npm ci` (docs/testing.md, "One linter").
 */
const SPECTRAL_OAS_RULES = { 'info-contact': 'error', 'operation-description': 'error', 'operation-tag-defined': 'error' } as const

/**
 * Redocly's `recommended` ruleset with {@link SPECTRAL_OAS_RULES} on a document (@redocly/openapi-core, which
 * openapi-typescript installs anyway, in this process: no CLI, no telemetry).
 */
export async function lintWithRedocly(document: object): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'], rules: SPECTRAL_OAS_RULES })
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config })
  return problems.map((p) => ({
    rule: p.ruleId,
    severity: p.severity === 'error' ? 'error' : p.severity === 'warn' ? 'warning' : 'info',
    message: p.message,
    at: p.location[0]?.pointer ?? '',
  }))
}
