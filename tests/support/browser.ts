import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/**
 * Where Debian's chromium-headless-shell package puts the browser (`npm test` installs it when missing): Chromium's
 * headless shell, the same Blink and V8 as the full browser without its window machinery, which is what Playwright
 * itself runs for headless Chromium. The dashboard's two files took a third less CPU on it than on the full browser's
 * headless mode (docs/testing.md). The binary itself, not the package's /usr/bin wrapper: the wrapper is a shell that
 * stays between Playwright and the browser, so stopping it would leave the browser running.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell'

/** Launches headless Debian Chromium with the flags this closed network needs. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: apt-get install --no-install-recommends chromium-headless-shell (or set CHROMIUM_PATH)`,
    )
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  })
}
