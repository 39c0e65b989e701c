import { defaultDeployServicesSource } from '../lib/deploy/agentActions.js'
import { createMcpHandler } from '../lib/mcp/server.js'
import { withRequestId } from '../lib/platform/requestId.js'
import { getReadServices } from '../lib/read/services.js'
import { createControlRoomHandler } from './control-room.js'
import { createTokenSearchHandler } from './token-search.js'

export default {
  fetch: withRequestId(
    createMcpHandler({
      controlRoom: createControlRoomHandler(getReadServices),
      tokenSearch: createTokenSearchHandler(getReadServices),
      deploy: defaultDeployServicesSource,
    }),
  ),
}
