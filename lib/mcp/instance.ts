import { createLaunchesEndpoint } from '../launches/endpoint.js'
import { instanceDeploySource, instanceLaunchesSource } from '../launches/instance.js'
import type { Endpoint } from '../platform/edge.js'
import { perInstance } from '../platform/perInstance.js'
import { createControlRoomEndpoint, createTokenOhlcvEndpoint, createTokenSearchEndpoint } from '../read/endpoint.js'
import { instanceReadSource } from '../read/instance.js'
import type { McpSource } from './endpoint.js'

/** A read endpoint built on this instance's first tool call that needs it (through perInstance), then reused. */
const onFirstCall = (build: () => Endpoint) => {
  const endpoint = perInstance(build)
  return (request: Request) => endpoint().fetch(request)
}

/** This instance's MCP tools: the read tools answer through the same endpoints as HTTP, the deploy tools through the deploy side. */
export const instanceMcpSource: McpSource = {
  controlRoom: onFirstCall(() => createControlRoomEndpoint(instanceReadSource)),
  tokenSearch: onFirstCall(() => createTokenSearchEndpoint(instanceReadSource)),
  tokenOhlcv: onFirstCall(() => createTokenOhlcvEndpoint(instanceReadSource)),
  launches: onFirstCall(() => createLaunchesEndpoint(instanceLaunchesSource)),
  deploy: instanceDeploySource,
}
