// `node --import ./tests/support/recordLoads.mjs`: appends the URL of every module the process loads to the file named
// by RECORD_LOADS_FILE, one a line, so a test can tell what a code path really loaded (static and dynamic imports).
import { register } from 'node:module'

register(new URL('./recordLoadsHooks.mjs', import.meta.url))
