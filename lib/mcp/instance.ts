import { instanceDeploySource } from '../deploy/instance.js'
import { createLaunchesEndpoint } from '../launches/endpoint.js'
import { instanceLaunchesSource } from '../launches/instance.js'
import { createControlRoomEndpoint, createTokenOhlcvEndpoint, createTokenSearchEndpoint } from '../read/endpoint.js'
import { instanceReadSource } from '../read/instance.js'
import type { McpSource } from './endpoint.js'

/** This instance's MCP tools: the read tools answer through the same endpoints as HTTP, the deploy tools through the deploy side. */
export const instanceMcpSource: McpSource = {
  controlRoom: createControlRoomEndpoint(instanceReadSource).fetch,
  tokenSearch: createTokenSearchEndpoint(instanceReadSource).fetch,
  tokenOhlcv: createTokenOhlcvEndpoint(instanceReadSource).fetch,
  launches: createLaunchesEndpoint(instanceLaunchesSource).fetch,
  deploy: instanceDeploySource,
}
