/** Most characters kept of a token name. */
export const NAME_MAX_LENGTH = 64
/** Most characters kept of a token symbol. */
export const SYMBOL_MAX_LENGTH = 24

// C0/C1 controls, zero-width and bidi formatting characters (LRM/RLM, ALM, embeddings, overrides, isolates), BOM.
const UNSAFE_CHARACTERS = /[\p{Cc}\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF\uFFF9-\uFFFB]/gu

/**
 * Makes untrusted upstream text safe to show: drops control, zero-width and bidi characters, folds white space,
 * trims, and caps the length in code points (never splitting a surrogate pair).
 */
export function sanitizeText(value: string | null | undefined, maxLength: number): string {
  if (typeof value !== 'string') return ''
  const cleaned = value
    .normalize('NFC')
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]/gu, ' ')
    .replace(UNSAFE_CHARACTERS, '')
    .replace(/\s+/gu, ' ')
    .trim()
  const codePoints = Array.from(cleaned)
  return codePoints.length > maxLength ? codePoints.slice(0, maxLength).join('').trimEnd() : cleaned
}
