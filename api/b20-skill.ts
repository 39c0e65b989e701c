import { defaultDeployServicesSource } from '../lib/deploy/agentActions.js'
import { createB20SkillHandler } from '../lib/deploy/handler.js'
import { withRequestId } from '../lib/platform/requestId.js'

export default { fetch: withRequestId(createB20SkillHandler(defaultDeployServicesSource)) }
