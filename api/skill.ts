import { SKILL_DOCUMENT } from '../lib/docs/skillDocument.js'
import { createTextHandler } from '../lib/docs/textHandler.js'
import { withRequestId } from '../lib/platform/requestId.js'

/** `GET /api/skill` (and `/skill.md`): the agent skill file, shipped as code (lib/docs/skillDocument.ts) so every build carries it. */
export default { fetch: withRequestId(createTextHandler('text/markdown; charset=utf-8', () => SKILL_DOCUMENT)) }
