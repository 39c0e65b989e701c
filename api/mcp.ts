import { instanceDeploySource } from '../lib/deploy/instance.js'
import { createMcpEndpoint } from '../lib/mcp/server.js'
import { createControlRoomEndpoint, createTokenSearchEndpoint } from '../lib/read/endpoints.js'
import { getReadServices } from '../lib/read/services.js'

/** `POST /api/mcp`: the read endpoints and the deploy actions as MCP tools. */
export default createMcpEndpoint({
  controlRoom: createControlRoomEndpoint(getReadServices).fetch,
  tokenSearch: createTokenSearchEndpoint(getReadServices).fetch,
  deploy: instanceDeploySource,
})
