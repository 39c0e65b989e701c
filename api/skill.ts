import { SKILL_DOCUMENT } from '../lib/skillDocument.js'
import { createTextHandler } from '../lib/textEndpoint.js'

/** `GET /api/skill` (and `/skill.md`): the agent skill file, shipped as code (lib/skillDocument.ts) so every build carries it. */
export default { fetch: createTextHandler('text/markdown; charset=utf-8', () => SKILL_DOCUMENT) }
