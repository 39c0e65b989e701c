import { createB20SkillEndpoint } from '../lib/deploy/endpoint.js'
import { instanceDeploySource } from '../lib/launches/instance.js'

/** `POST /api/b20-skill`: the agent actions. */
export default createB20SkillEndpoint(instanceDeploySource)
