import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startRedisServer } from './redisServer.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Unix socket of the redis-server shared by the test run. */
    redisSocket: string
  }
}

/** Starts one real redis-server for the whole run; each test file prefixes its keys. */
export default async function setup(project: TestProject) {
  const redis = await startRedisServer()
  project.provide('redisSocket', redis.socket)
  return () => redis.stop()
}
