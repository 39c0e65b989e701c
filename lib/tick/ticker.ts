import type { Sleep } from '../platform/clock.js'
import { errorName, type Logger, publicErrorMessage } from '../platform/log.js'

/** Parameters of {@link startTicker}. */
export type StartTickerParameters = {
  /** Seconds between ticks (0: no ticker). */
  intervalSeconds: number
  /** One tick; its failure is logged, never thrown. */
  run: () => Promise<unknown>
  logger: Logger
  /** Delay before the first tick (default 1 s: after the server listens). */
  firstDelayMs?: number
  /** The clock ticks are timed on (the read services' `now` and `sleep`). */
  now: () => number
  sleep: Sleep
}

/**
 * Runs the tick in this process every `intervalSeconds` (`npm start`, the sandbox): a self-hosted server is always on
 * without Vercel Cron or QStash. Ticks never overlap; the timer does not keep the process alive. Answers `stop`.
 */
export function startTicker({ intervalSeconds, run, logger, firstDelayMs = 1000, now, sleep }: StartTickerParameters): () => void {
  if (intervalSeconds <= 0) return () => undefined
  const stopped = new AbortController()
  const schedule = async (ms: number) => {
    await sleep(ms, { signal: stopped.signal, holdsProcess: false })
    if (stopped.signal.aborted) return
    const started = now()
    try {
      await run()
    } catch (error) {
      logger.error('tick_failed', { error: errorName(error), message: publicErrorMessage(error) })
    }
    void schedule(Math.max(0, intervalSeconds * 1000 - (now() - started)))
  }
  void schedule(firstDelayMs)
  return () => stopped.abort()
}

/**
 * Starts this process's ticker over the instance's own services, as `npm start` and the sandbox run it:
 * `TICK_INTERVAL_SECONDS` apart (0: off). Answers `stop`, and the interval in use.
 */
export async function startInProcessTicker(env = process.env): Promise<{ stop: () => void; intervalSeconds: number }> {
  const [{ loadTickConfig }, { instanceReadSource }, { instanceDeploySource }, { runTick }] = await Promise.all([
    import('./config.js'),
    import('../read/instance.js'),
    import('../launches/instance.js'),
    import('./runTick.js'),
  ])
  const { intervalSeconds } = loadTickConfig(env)
  const read = instanceReadSource()
  const stop = startTicker({
    intervalSeconds,
    logger: read.logger,
    now: read.now,
    sleep: read.sleep,
    run: () => runTick({ read, deploy: instanceDeploySource.services, caller: 'in-process', intervalSeconds }),
  })
  return { stop, intervalSeconds }
}
