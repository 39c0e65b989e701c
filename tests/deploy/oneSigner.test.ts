import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// docs/architecture.md: lib/deploy/sender/ is the one way the signer sends, and sign.ts is the one module that signs a
// transaction (the KMS account defines the method; the paid door's offer receipt signs a message, not a transaction).

const ROOT = join(import.meta.dirname, '..', '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

describe('the one signer', () => {
  it('signs transactions in lib/deploy/sender/sign.ts only', () => {
    const calls = sourceFiles(join(ROOT, 'lib')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /\bsign(Transaction|Authorization)\s*\(/.test(line) && !/^\s*(\/\/|\*|\/\*\*)/.test(line))
        .map(() => relative(ROOT, file)),
    )
    expect(calls.length).toBeGreaterThan(1) // the walk sees the method's definition and its call
    expect([...new Set(calls)].sort()).toEqual(['lib/chain/kmsAccount.ts', 'lib/deploy/sender/sign.ts'])
  })
})
