import { defaultDeployServicesSource } from '../lib/deploy/agentActions.js'
import { createB20SkillEndpoint } from '../lib/deploy/handler.js'

/** `POST /api/b20-skill`: the agent actions. */
export default createB20SkillEndpoint(defaultDeployServicesSource)
