import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../lib/platform/config.js'
import { errorAnswerOf } from '../../lib/platform/errorAnswer.js'
import { BaseError } from '../../lib/platform/errors.js'
import { createLogger } from '../../lib/platform/log.js'
import { ReadNotFoundError } from '../../lib/read/errors.js'
import { StoreError } from '../../lib/store/types.js'

// The service's errors have one base and one way to become an answer, and what may be shown of an error is decided by
// its type, never by a flag on it or a pattern over its message.

const ROOT = join(import.meta.dirname, '..', '..')
const LIB = join(ROOT, 'lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** Every line of lib/ (or of `folder`) that matches `pattern`, as `file:line: text` (a path under lib/ without `lib/`). */
function linesMatching(pattern: RegExp, folder = LIB): string[] {
  return sourceFiles(folder).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((text, index) =>
        pattern.test(text) ? [`${relative(folder === LIB ? LIB : ROOT, file)}:${index + 1}: ${text.trim()}`] : [],
      ),
  )
}

describe('one error base', () => {
  it('has every error class in lib/ and dev/ extend BaseError: only BaseError itself extends Error', () => {
    const extendsError = /class\s+\w+(<[^>]*>)?\s+extends\s+Error\b/
    expect(linesMatching(/class\s+\w+(<[^>]*>)?\s+extends\s+BaseError\b/, join(ROOT, 'dev')).length).toBeGreaterThan(0) // the scan sees dev/
    expect([...linesMatching(extendsError), ...linesMatching(extendsError, join(ROOT, 'dev'))]).toEqual([
      'platform/errors.ts:29: export class BaseError<code extends string = string> extends Error {',
    ])
  })

  it('has viem’s shape: a short message, public details under it, a private cause, and walk() down the causes', () => {
    const rpc = new Error('connect ECONNREFUSED https://rpc.example/v2/key')
    const store = new BaseError('store get failed', { code: 'STORE_UNAVAILABLE', cause: rpc })
    const outer = new BaseError('The deploy could not be recorded.', {
      code: 'NOT_RECORDED',
      details: { retryAfterSeconds: 10 },
      cause: store,
    })
    expect(outer.shortMessage).toBe('The deploy could not be recorded.')
    expect(outer.details).toEqual({ retryAfterSeconds: 10 })
    // The message is the short message and then the details, as viem writes them; never the private cause's text.
    expect(outer.message).toBe('The deploy could not be recorded.\n\nDetails: {"retryAfterSeconds":10}')
    expect(outer.message).not.toContain('rpc.example')
    expect(new StoreError('store get failed').message).toBe('store get failed\n\nDetails: {"retryAfterSeconds":10}')
    expect(new BaseError('Plain.', { code: 'X' }).message).toBe('Plain.')
    expect(outer.cause).toBe(store)
    // walk() as viem's: the first of the chain a predicate accepts (or null), or without one the innermost cause.
    expect(outer.walk((error) => error instanceof BaseError && error.code === 'STORE_UNAVAILABLE')).toBe(store)
    expect(outer.walk((error) => error === rpc)).toBe(rpc)
    expect(outer.walk((error) => error instanceof StoreError)).toBeNull()
    expect(outer.walk()).toBe(rpc)
    expect(new BaseError('Alone.', { code: 'X' }).walk()).toBeInstanceOf(BaseError)
  })

  it('has one class named BaseError in lib/: viem’s is imported only under another name (ViemBaseError)', () => {
    const bare = sourceFiles(LIB).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'viem[^']*'/g)]
        .flatMap((match) => match[1]!.split(','))
        .filter((specifier) => /^\s*(type\s+)?BaseError\s*$/.test(specifier))
        .map(() => relative(LIB, file)),
    )
    expect(bare).toEqual([])
    // The rule is read from real imports: the renamed one is found.
    expect(linesMatching(/BaseError as ViemBaseError/).length).toBeGreaterThan(0)
  })

  it('writes the sentence of an invalid request once: every door refuses through invalidRequest', () => {
    expect(linesMatching(/is invalid; see details/).map((line) => line.split(':')[0])).toEqual(['deploy/outcome.ts'])
    expect(linesMatching(/failure\(\s*'INVALID_INTENT'/)).toHaveLength(1)
  })

  it('tells a public message by the error’s type, never by a flag on it', () => {
    expect(linesMatching(/messageIsPublic/)).toEqual([])
  })

  it('never reads why something failed from a pattern over an error’s message', () => {
    expect(linesMatching(/\.message\.(match|matchAll|search)\(|\.(test|exec)\(\s*(\w+\.)*message\s*\)/)).toEqual([])
  })

  it('writes every refusal in the one result shape: no hand-written `ok: false` outside the files listed here', () => {
    // A refusal is `Refused<code, …>`, built by `refused()` (lib/platform/result.ts), so every caller reads `ok` and then
    // `code` the same way. The files below write `ok: false` themselves, each for the reason given.
    const ALLOWED: Record<string, string> = {
      'platform/result.ts': 'it defines the shape',
      'platform/errorAnswer.ts': 'the one mapping from an error to an answer: `ok` only where the endpoint’s bodies carry it',
      'health/checks.ts': 'a health part’s `ok` is up or down, a status shown as it is, not a refusal',
      'market/snapshots.ts':
        'lib/market imports of lib/ only the upstream’s pure wire shapes (tests/layout.test.ts): it writes the Refused shape by hand',
      'market/search.ts': 'as market/snapshots.ts',
      'market/ohlcvQuery.ts': 'as market/snapshots.ts',
      'mcp/openapi.ts': 'a sentence of the OpenAPI description that names the shape',
      'payments/door/doorAnswers.ts':
        'the paid door’s wire bodies (the 402 and the errors outside the domain), in the order x402 clients read',
      'mcp/paidTool.ts':
        'deploy_token_paid’s results carry the paid door’s wire bodies (its 402 beside x402’s PaymentRequired) as they came',
    }
    const comment = /^\S+:\d+: (\/\/|\/\*\*|\*)/
    const found = linesMatching(/\bok:\s*false\b/).filter((line) => !comment.test(line) && !line.startsWith('docs/'))
    const fileOf = (line: string) => line.split(':')[0]!
    expect(found.filter((line) => !(fileOf(line) in ALLOWED))).toEqual([])
    for (const file of Object.keys(ALLOWED)) expect(found.map(fileOf), `${file} still writes ok: false`).toContain(file)
    // What lib/market writes by hand is still a Refused: every refusal there names its code.
    expect(found.filter((line) => line.startsWith('market/') && !/\bcode\b/.test(line))).toEqual([])
  })

  it('writes every accept-or-refuse result in one shape: Result<>, or DeployResult<> on the deploy side', () => {
    // `Accepted<T> | Refused<…>` is spelled `Result<T, …>`, and `{ ok: true; … } | DeployFailure` is `DeployResult<…>`.
    // result.ts defines Result so.
    const code = (line: string) => !/^\S+:\d+: (\/\/|\/\*\*|\*)/.test(line)
    expect(
      linesMatching(/Accepted<.*>\s*\|\s*Refused</)
        .filter(code)
        .map((line) => line.split(':')[0]),
    ).toEqual(['platform/result.ts'])
    const INLINE_ALLOWED: Record<string, string> = {
      'market/snapshots.ts': 'lib/market writes the Refused shape by hand (see the `ok: false` test above)',
      'market/search.ts': 'as market/snapshots.ts',
      'market/ohlcvQuery.ts': 'as market/snapshots.ts',
    }
    const inline = linesMatching(/\{ ok: true;/).filter((line) => code(line) && !(line.split(':')[0]! in INLINE_ALLOWED))
    expect(inline).toEqual([])
  })

  it('answers a configuration error 500 CONFIG_INVALID, and tells only the operator which variable', () => {
    const lines: string[] = []
    const logger = createLogger({ write: (line) => lines.push(line) })
    const answer = errorAnswerOf(new ConfigError('Invalid read configuration: CHAIN_ID: must be 8453'), { endpoint: 'x', logger })
    expect(answer).toEqual({
      status: 500,
      body: { ok: false, error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' },
      headers: {},
    })
    expect(lines.join('')).toContain('CHAIN_ID: must be 8453')
  })

  it('answers an error the endpoint documents its status, code, message and details, with Retry-After when it says when', () => {
    const asItself = { endpoint: 'x', answersAsItself: () => true }
    expect(errorAnswerOf(new StoreError('store get failed'), asItself)).toEqual({
      status: 503,
      body: { ok: false, error: 'store get failed', code: 'STORE_UNAVAILABLE', retryAfterSeconds: 10 },
      headers: { 'retry-after': '10' },
    })
    const notFound = new ReadNotFoundError('UNKNOWN_TOKEN', 'No such token.')
    expect(errorAnswerOf(notFound, { endpoint: 'x', withOk: false, answersAsItself: (e) => e instanceof ReadNotFoundError })).toEqual({
      status: 404,
      body: { error: 'No such token.', code: 'UNKNOWN_TOKEN' },
      headers: {},
    })
  })

  it('answers a known error the endpoint does not document INTERNAL, so no answer has a status its contract lacks', () => {
    const answer = errorAnswerOf(new StoreError('store get failed'), { endpoint: 'x', logger: createLogger({ write: () => {} }) })
    expect([answer.status, answer.body.code]).toEqual([500, 'INTERNAL'])
  })

  it('answers anything else INTERNAL and logs its name, never a foreign message or the private cause', () => {
    const lines: string[] = []
    const logger = createLogger({ write: (line) => lines.push(line) })
    const answer = errorAnswerOf(new Error('connect ECONNREFUSED https://rpc.example/v2/key'), { endpoint: 'x', logger })
    expect([answer.status, answer.body.code]).toEqual([500, 'INTERNAL'])
    const wrapped = errorAnswerOf(new BaseError('the signer is down', { code: 'SIGNER_UNAVAILABLE', cause: new Error('v2/key') }), {
      endpoint: 'x',
      logger,
      answersAsItself: () => true,
    })
    expect(wrapped.body).toEqual({ ok: false, error: 'the signer is down', code: 'SIGNER_UNAVAILABLE' })
    expect(lines.join('')).toContain('"event":"x_failed"')
    expect(`${lines.join('')}${JSON.stringify(wrapped)}`).not.toContain('key')
  })
})
