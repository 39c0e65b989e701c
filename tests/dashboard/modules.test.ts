import { describe, expect, it } from 'vitest'
import { dashboardModules, preloadedModules } from '../support/dashboardModules.js'

describe('the dashboard’s modules', () => {
  it('are all preloaded by index.html, so none waits for the module that imports it (no request waterfall)', () => {
    const modules = dashboardModules()
    expect(modules.length).toBeGreaterThanOrEqual(5) // the scan follows imports through the modules
    expect(preloadedModules()).toEqual(modules)
  })
})
