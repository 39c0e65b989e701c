import { readSkillFile } from '../lib/docs.js'
import { createTextHandler } from '../lib/textEndpoint.js'

/** `GET /api/skill` (and `/skill.md`): the agent skill file. */
export default { fetch: createTextHandler('text/markdown; charset=utf-8', readSkillFile) }
