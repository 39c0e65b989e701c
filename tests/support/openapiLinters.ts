import { createConfig, lintFromString } from '@redocly/openapi-core'
import { Spectral } from '@stoplight/spectral-core'
import { oas } from '@stoplight/spectral-rulesets'

/** One finding of a linter: its rule, how severe, what it says and where. */
export type LintProblem = { rule: string; severity: 'error' | 'warning' | 'info'; message: string; at: string }

/** Redocly's `recommended` ruleset on a document (@redocly/openapi-core in this process: no CLI, no telemetry). */
export async function lintWithRedocly(document: object): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'] })
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config })
  return problems.map((p) => ({
    rule: p.ruleId,
    severity: p.severity === 'error' ? 'error' : p.severity === 'warn' ? 'warning' : 'info',
    message: p.message,
    at: p.location[0]?.pointer ?? '',
  }))
}

const SPECTRAL_SEVERITIES = ['error', 'warning', 'info', 'info'] as const

/** Spectral's `spectral:oas` ruleset (its recommended rules) on a document, in this process. */
export async function lintWithSpectral(document: object): Promise<LintProblem[]> {
  const spectral = new Spectral()
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] })
  const results = await spectral.run(JSON.stringify(document, null, 2))
  return results.map((r) => ({
    rule: String(r.code),
    severity: SPECTRAL_SEVERITIES[r.severity] ?? 'info',
    message: r.message,
    at: r.path.join('/'),
  }))
}
