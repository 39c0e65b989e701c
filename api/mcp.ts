import { defaultDeployServicesSource } from '../lib/deploy/agentActions.js'
import { createMcpHandler } from '../lib/mcp/server.js'
import { withRequestId } from '../lib/platform/requestId.js'
import { createControlRoomHandler, createTokenSearchHandler } from '../lib/read/handlers.js'
import { getReadServices } from '../lib/read/services.js'

export default {
  fetch: withRequestId(
    createMcpHandler({
      controlRoom: createControlRoomHandler(getReadServices),
      tokenSearch: createTokenSearchHandler(getReadServices),
      deploy: defaultDeployServicesSource,
    }),
  ),
}
