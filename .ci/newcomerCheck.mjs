// The README's set-up as a newcomer runs it, on this machine's own Node (whatever it is; plain JavaScript, so Node 20
// runs it too): `npm run sandbox`, then the deploy it prints, then its receipt, then the paid deploy it prints (x402,
// no key), then Ctrl-C. On a Node older than 22.18
// the sandbox must say so in one line and run on Node 24 from the npm registry; on any Node the printed deploy must be
// broadcast and confirmed, and Ctrl-C must stop the server and the chain. Fails loudly, saying which step went wrong.
//   node .ci/newcomerCheck.mjs
import { execFile, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
/** How long the sandbox may take to say it is ready: the first run on an old Node installs Node 24 from the registry. */
const READY_WITHIN_MS = 300_000
/** How long the printed deploy may take to be mined (the local chain mines at once). */
const CONFIRMED_WITHIN_MS = 30_000
/** How long the printed paid deploy may take (npm, the runner and Node start, then a 402, a payment and a deploy). */
const PAID_WITHIN_MS = 120_000
/** How long Ctrl-C may take to stop everything. */
const STOPPED_WITHIN_MS = 30_000

const [major, minor] = process.versions.node.split('.').map(Number)
const supported = (major === 22 && minor >= 12) || major === 24

// In its own process group, as a terminal runs a command: Ctrl-C then reaches npm, the runner and the sandbox at once.
// PORT=0: any free port, since CI machines are shared (the README's default is 3000).
const sandbox = spawn('npm', ['run', 'sandbox'], {
  cwd: root,
  env: { ...process.env, PORT: '0' },
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
})
const stdout = []
const stderr = []
createInterface({ input: sandbox.stderr }).on('line', (line) => stderr.push(line))
const lines = createInterface({ input: sandbox.stdout })
lines.on('line', (line) => stdout.push(line))
const exited = new Promise((resolve) => sandbox.on('exit', (code, signal) => resolve({ code, signal })))

/** The sandbox's own key is throwaway, but a CI log keeps no key. */
const redact = (text) => text.replace(/bcr_[A-Za-z0-9_-]+/g, 'bcr_…').replace(/0x[0-9a-fA-F]{64}(?= npm run pay)/g, '0x…')

/** Stops everything and exits 1, saying what went wrong and what the sandbox printed. */
function fail(what) {
  console.error(`newcomer check FAILED (Node ${process.version}): ${what}`)
  console.error(`--- npm run sandbox printed (stdout, last 40 lines):\n${redact(stdout.slice(-40).join('\n'))}`)
  console.error(`--- and on stderr (last 40 lines):\n${redact(stderr.slice(-40).join('\n'))}`)
  try {
    process.kill(-sandbox.pid, 'SIGKILL')
  } catch {}
  process.exit(1)
}

/** Resolves with `promise`, or fails the check with `what` after `ms`. */
function within(ms, what, promise) {
  let timer
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** POSTs `body` as JSON with the agent key, as the printed curl does; the answer's JSON. */
async function post(url, key, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'x-service-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    return fail(`${url} answered ${response.status} with a body that is not JSON: ${redact(text.slice(0, 200))}`)
  }
}

/** True once nothing answers at `url` any more. */
const refused = (url) =>
  fetch(url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) }).then(
    () => false,
    () => true,
  )

try {
  const ready = new Promise((resolve) => lines.on('line', (line) => line.startsWith('Ctrl-C') && resolve()))
  await within(
    READY_WITHIN_MS,
    'npm run sandbox printing its ready lines',
    Promise.race([ready, exited.then(({ code, signal }) => Promise.reject(new Error(`npm run sandbox exited (${code ?? signal})`)))]),
  )
} catch (error) {
  fail(error.message)
}
const printed = stdout.join('\n')

const base = /sandbox ready at (http:\/\/\S+)/.exec(printed)?.[1]
const chain = /chain (http:\/\/\S+)/.exec(printed)?.[1]
const deploy = stdout.find((line) => line.includes('"action":"agent_deploy"'))
const curl = deploy && /curl -s -X POST (\S+) -H 'X-Service-Key: (\S+)' .* -d '(\{.*\})'$/.exec(deploy)
if (!base || !chain || !curl) fail('the sandbox did not print its URL, its chain and a curl deploy command with a key')
const [, deployUrl, key, body] = curl
console.log(`sandbox ready at ${base}; running its printed deploy`)

const deployed = await post(deployUrl, key, JSON.parse(body))
if (deployed.ok !== true || deployed.status !== 'broadcast')
  fail(`the printed deploy answered ${redact(JSON.stringify(deployed))}, not ok: true, status: "broadcast"`)
console.log(`deploy broadcast: ${deployed.txHash}`)

// The walkthrough's step 4: poll the receipt until it is confirmed.
const started = Date.now()
let receipt
do {
  receipt = await post(deployUrl, key, { action: 'receipt', tx_hash: deployed.txHash })
  if (receipt.status === 'confirmed' || receipt.ok !== true) break
  await new Promise((resolve) => setTimeout(resolve, 500))
} while (Date.now() - started < CONFIRMED_WITHIN_MS)
if (receipt.ok !== true || receipt.status !== 'confirmed' || receipt.tokenAddress !== deployed.predictedAddress)
  fail(`the receipt answered ${redact(JSON.stringify(receipt))}, not confirmed at ${deployed.predictedAddress}`)
if (deployed.pool && receipt.pool?.status !== 'seeded')
  fail(`the printed pooled launch's receipt says its pool is ${redact(JSON.stringify(receipt.pool))}, not seeded`)
console.log(
  `receipt confirmed: token at ${receipt.tokenAddress}${receipt.pool ? `, pool ${receipt.pool.poolId} seeded (position ${receipt.pool.positionId})` : ''}`,
)

// The paid door: the printed command pays with x402 (a funded test wallet, the spendControls the test token needs) and
// gets the token's address in the same answer.
const payLine = stdout.find((line) => line.includes('npm run pay --'))
const pay = payLine && /X402_PAYER_KEY=(0x[0-9a-fA-F]{64}) npm run pay -- (\S+) '(\{.*\})' --asset (\S+) --max (\d+)$/.exec(payLine)
if (!pay) fail('the sandbox did not print a paid deploy (npm run pay) with a payer key, the door and the spendControls')
const [, payerKey, doorUrl, paidBody, asset, max] = pay
const paid = await within(
  PAID_WITHIN_MS,
  'the printed paid deploy answering',
  new Promise((resolve) =>
    execFile(
      'npm',
      ['run', '--silent', 'pay', '--', doorUrl, paidBody, '--asset', asset, '--max', max],
      { cwd: root, env: { ...process.env, X402_PAYER_KEY: payerKey }, encoding: 'utf8' },
      (error, out) => resolve({ code: error ? error.code : 0, out }),
    ),
  ),
).catch((error) => fail(error.message))
const paidAnswer = (() => {
  try {
    return JSON.parse(paid.out.split('\n').find((line) => line.startsWith('{"status"')) ?? 'null')
  } catch {
    return null
  }
})()
if (paid.code !== 0 || paidAnswer?.status !== 200 || paidAnswer.answer?.ok !== true || paidAnswer.answer.receipt?.status !== 'confirmed')
  fail(`the printed paid deploy answered ${redact(paid.out.slice(-600))}, not 200 with ok: true and a confirmed receipt`)
console.log(`paid deploy broadcast and confirmed in the same call: token at ${paidAnswer.answer.receipt.tokenAddress}`)

const notice = stderr.filter((line) => line.includes('is not supported'))
if (!supported && notice.length !== 1) fail(`on Node ${process.version} the runner must say once that it runs on Node 24 instead`)
if (supported && notice.length !== 0) fail(`on Node ${process.version}, a supported Node, the runner must say nothing`)
console.log(`runner: ${notice[0] ?? `Node ${process.version} is supported: the sandbox ran on it`}`)

// Ctrl-C, as a terminal sends it: to the whole process group.
process.kill(-sandbox.pid, 'SIGINT')
try {
  const { code, signal } = await within(STOPPED_WITHIN_MS, 'the sandbox stopping on Ctrl-C', exited)
  if (code !== 0) fail(`npm run sandbox exited with ${code ?? signal} on Ctrl-C, not 0`)
} catch (error) {
  fail(error.message)
}
if (!(await refused(`${base}/api/health`))) fail(`the sandbox's server still answers at ${base} after Ctrl-C`)
if (!(await refused(chain))) fail(`the sandbox's chain still answers at ${chain} after Ctrl-C`)
console.log(
  `newcomer check passed on Node ${process.version}: npm run sandbox, its deploy confirmed, its paid deploy confirmed, Ctrl-C stopped everything`,
)
