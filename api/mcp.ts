import { instanceDeploySource } from '../lib/deploy/instance.js'
import { loadLaunchesConfig } from '../lib/launches/config.js'
import { createLaunchesEndpoint } from '../lib/launches/endpoint.js'
import { createMcpEndpoint } from '../lib/mcp/endpoint.js'
import { perInstance } from '../lib/platform/perInstance.js'
import { createControlRoomEndpoint, createTokenSearchEndpoint } from '../lib/read/endpoint.js'
import { createTokenOhlcvEndpoint } from '../lib/read/ohlcvEndpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `POST /api/mcp`: the read endpoints and the deploy actions as MCP tools. */
export default createMcpEndpoint({
  controlRoom: createControlRoomEndpoint(getReadServices).fetch,
  tokenSearch: createTokenSearchEndpoint(getReadServices).fetch,
  tokenOhlcv: createTokenOhlcvEndpoint(getReadServices).fetch,
  launches: createLaunchesEndpoint(
    getReadServices,
    perInstance(() => loadLaunchesConfig(process.env)),
  ).fetch,
  deploy: instanceDeploySource,
})
