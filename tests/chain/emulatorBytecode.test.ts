import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { compileEmulator } from '../support/contracts/build.js'

describe('tests/support/contracts/emulator.json', () => {
  it('is what B20FactoryEmulator.sol compiles to (run npm run build:contracts after editing the source)', () => {
    const committed = JSON.parse(readFileSync(new URL('../support/contracts/emulator.json', import.meta.url), 'utf8')) as unknown
    expect(compileEmulator()).toEqual(committed)
  })
})
