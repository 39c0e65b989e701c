import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Where Debian's chromium package puts the browser (`.ci/run` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Launches headless Debian Chromium with the flags this closed network needs. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (or set CHROMIUM_PATH)`)
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
