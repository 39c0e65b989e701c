// Runs in a built function's directory (cwd), as Vercel's Node runtime does: imports the handler named in
// .vc-config.json and hands it each call of argv[2] (JSON) as a Web Request; prints {"answers": [...]} last.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const config = JSON.parse(readFileSync('.vc-config.json', 'utf8'))
const module = await import(pathToFileURL(`${process.cwd()}/${config.handler}`).href)
const handler = module.default?.fetch
if (typeof handler !== 'function') throw new Error(`${config.handler} has no default { fetch } export`)

const answers = []
for (const call of JSON.parse(process.argv[2])) {
  const response = await handler(
    new Request(`https://built.test${call.path}`, { method: call.method ?? 'GET', headers: call.headers ?? {}, body: call.body ?? null }),
  )
  answers.push({ status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() })
}
// Exit once the answers are written: exiting right after a large write to a pipe can cut it short.
process.stdout.write(`\n${JSON.stringify({ answers })}\n`, () => process.exit(0))
