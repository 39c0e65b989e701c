// `npm run agents -- issue | list | revoke | webhook | tokens | credits | payments`: agent keys, their webhooks, their
// tokens and the paid door's open payments, in the shared store the service reads (dev/agentsCommand.ts says what
// each command does).
import { runAgentsCommand } from './agentsCommand.js'

process.exitCode = await runAgentsCommand({
  args: process.argv.slice(2),
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
})
