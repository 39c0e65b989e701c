// First step of `npm test`: the two Debian packages the suite drives for real (redis-server, and
// chromium-headless-shell: headless Chromium, tests/support/browser.ts). Installs what is missing when it can (root
// with apt-get), otherwise stops at once with the exact command to run.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const chromium = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell'
const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0

const missing = []
if (!onPath('redis-server')) missing.push('redis-server')
if (!existsSync(chromium)) missing.push('chromium-headless-shell')
if (missing.length === 0) process.exit(0)

// Without what the packages only recommend: for chromium-headless-shell that is about 90 packages more (GTK, Samba's
// and Perl's libraries, a udev that upgrades systemd), a minute of dpkg beside `npm ci` on a fresh machine, and
// nothing a headless page needs (docs/testing.md, "Chromium without what it recommends").
const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`
if (process.getuid?.() === 0 && onPath('apt-get')) {
  console.log(`npm test: installing ${missing.join(' and ')} (Debian packages the tests run for real)`)
  try {
    const options = { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }
    execFileSync('apt-get', ['update', '-qq'], options)
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], options)
    process.exit(0)
  } catch {
    console.error(`npm test: could not install ${missing.join(' and ')}; run \`${command}\` and try again.`)
    process.exit(1)
  }
}
console.error(
  `npm test needs the Debian package${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, not installed here.\n` +
    `Install with:\n\n  sudo ${command}\n\n` +
    (missing.includes('chromium-headless-shell')
      ? 'or point CHROMIUM_PATH at a Chromium binary; then run npm test again.\n'
      : 'then run npm test again.\n'),
)
process.exit(1)
