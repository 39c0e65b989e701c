// Module hooks of recordLoads.mjs.
import { appendFileSync } from 'node:fs'

const file = process.env.RECORD_LOADS_FILE

/** Records each loaded module's URL, then loads it as usual. */
export async function load(url, context, nextLoad) {
  if (file) appendFileSync(file, `${url}\n`)
  return nextLoad(url, context)
}
