import { createTextEndpoint } from '../lib/docs/endpoint.js'
import { SKILL_DOCUMENT } from '../lib/docs/skillDocument.js'

/** `GET /api/skill` (and `/skill.md`): the agent skill file, shipped as code (lib/docs/skillDocument.ts) so every build carries it. */
export default createTextEndpoint('text/markdown; charset=utf-8', () => SKILL_DOCUMENT)
