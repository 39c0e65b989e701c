import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { perInstance, perInstanceAsync, startNewInstance } from '../../lib/platform/perInstance.js'

// What an instance builds once (lib/platform/perInstance.ts): the same value for the life of the instance, built
// anew in the next one (each test file begins one: tests/support/newInstance.ts), and nothing kept from a failed build.

describe('perInstance', () => {
  it('builds on the first call, answers the same value after that, and builds anew in a new instance', () => {
    let builds = 0
    const config = perInstance(() => ({ build: ++builds }))
    expect(builds).toBe(0) // nothing is built when the memo is made
    const first = config()
    expect(config()).toBe(first)
    expect(builds).toBe(1)
    startNewInstance()
    const second = config()
    expect(second).toEqual({ build: 2 })
    expect(second).not.toBe(first)
    expect(config()).toBe(second)
  })

  it('keeps nothing from a build that throws: the next call tries again', () => {
    let fail = true
    const config = perInstance(() => {
      if (fail) throw new Error('bad configuration')
      return { ok: true }
    })
    expect(() => config()).toThrow('bad configuration')
    fail = false
    expect(config()).toEqual({ ok: true })
  })

  it('lets a memo that is itself let go take its value with it, in the same instance', async () => {
    // V8's own collector, reached without starting the worker with --expose-gc.
    setFlagsFromString('--expose-gc')
    const collect = runInNewContext('gc') as () => void
    let memo: (() => object) | null = perInstance(() => ({ payload: new Uint8Array(1 << 20) }))
    const value = new WeakRef(memo())
    memo = null
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve))
    collect()
    expect(value.deref()).toBeUndefined()
  })
})

describe('perInstanceAsync', () => {
  it('shares one build among concurrent calls, and builds anew in a new instance', async () => {
    let builds = 0
    const services = perInstanceAsync(async () => ({ build: ++builds }))
    const [a, b] = await Promise.all([services(), services()])
    expect(a).toBe(b)
    expect(builds).toBe(1)
    startNewInstance()
    expect(await services()).toEqual({ build: 2 })
  })

  it('keeps nothing from a build that rejects, and an old instance’s rejection never drops the new instance’s build', async () => {
    const releases: (() => void)[] = []
    let builds = 0
    const services = perInstanceAsync(async () => {
      const build = ++builds
      if (build === 1) throw new Error('store down')
      if (build === 2) await new Promise<void>((_, reject) => releases.push(() => reject(new Error('late failure'))))
      return { build }
    })
    await expect(services()).rejects.toThrow('store down')
    // The next call tries again: build 2, which fails late, after a new instance began and built its own (3).
    const old = services()
    startNewInstance()
    const fresh = await services()
    expect(fresh).toEqual({ build: 3 })
    releases[0]!()
    await expect(old).rejects.toThrow('late failure')
    expect(await services()).toBe(fresh)
    expect(builds).toBe(3)
  })
})
