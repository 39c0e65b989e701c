// The one shape of "accepted, or refused with a code": a function whose result means that answers `Result<T, code, D>`
// (`Accepted<T> | Refused<code, D>`), or on the deploy side `DeployResult<T>` (lib/deploy/outcome.ts: the refusal is a
// DeployFailure, the answer it is handed on as), so every caller reads `ok` and then `code` the same way. A multi-way
// outcome that is not accept-or-refuse keeps its own `kind` union; its refusal arms carry a Refused. lib/market,
// which imports of lib/ only the upstream's pure wire shapes (tests/layout.test.ts), writes its parsers' refusals in this shape without the import.

/** A request or step that went through, with what it produced. */
export type Accepted<T extends object = object> = { ok: true } & T

/** A refusal: its answer code, and what else it carries (`error`, a sentence for people, when it has one). */
export type Refused<code extends string = string, D extends object = object> = { ok: false; code: code } & D

/** Accepted, or refused with one of `code`. */
export type Result<T extends object, code extends string = string, D extends object = object> = Accepted<T> | Refused<code, D>

/** Builds an {@link Accepted}. */
export function accepted<const T extends object>(value: T): Accepted<T> {
  return { ok: true, ...value }
}

/**
 * Builds a {@link Refused}: `{ ok: false, error, code, ...rest }`, the key order every `ok: false` answer has had (an
 * answer is written byte for byte as before).
 */
export function refused<const code extends string, D extends object = object>(code: code, rest?: D): Refused<code, D> {
  const { error, ...others } = (rest ?? {}) as { error?: unknown }
  return { ok: false, ...(error === undefined ? {} : { error }), code, ...others } as Refused<code, D>
}
