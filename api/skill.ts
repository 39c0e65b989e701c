import { createSkillEndpoint } from '../lib/docs/endpoint.js'

/** `GET /api/skill` (and `/skill.md`): the agent skill file. The documents run on no side of the instance. */
export default createSkillEndpoint()
