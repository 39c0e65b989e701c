import { createLaunchesEndpoint } from '../launches/endpoint.js'
import { instanceDeploySource, instanceLaunchesSource } from '../launches/instance.js'
import { ConfigError } from '../platform/config.js'
import type { Endpoint } from '../platform/edge.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { createControlRoomEndpoint, createTokenOhlcvEndpoint, createTokenSearchEndpoint } from '../read/endpoint.js'
import { instanceReadSource } from '../read/instance.js'
import type { McpSource } from './endpoint.js'

/** A read endpoint built on this instance's first tool call that needs it (through perInstance), then reused. */
const onFirstCall = (build: () => Endpoint) => {
  const endpoint = perInstance(build)
  return (request: Request) => endpoint().fetch(request)
}

/** This instance's paid door (its settings, and its HTTP face), loaded on the MCP endpoint's first request, then reused. */
const paidDoor = perInstanceAsync(async () => {
  const [{ createPaidDeployEndpoint }, { instancePaymentsSource }] = await Promise.all([
    import('../payments/endpoint.js'),
    import('../payments/instance.js'),
  ])
  return { source: instancePaymentsSource, endpoint: createPaidDeployEndpoint(instancePaymentsSource) }
})

/** Whether this instance's paid door is on; settings it cannot read (its own requests answer CONFIG_INVALID) offer nothing. */
async function paidDeploysOffered(): Promise<boolean> {
  const { source } = await paidDoor()
  try {
    return source.config().offReason === null
  } catch (error) {
    if (error instanceof ConfigError) return false
    throw error
  }
}

/**
 * This instance's MCP tools: the read tools answer through the same endpoints as HTTP, the deploy tools through the
 * deploy side, and the paid deploy tool through the paid door's own endpoint.
 */
export const instanceMcpSource: McpSource = {
  controlRoom: onFirstCall(() => createControlRoomEndpoint(instanceReadSource)),
  tokenSearch: onFirstCall(() => createTokenSearchEndpoint(instanceReadSource)),
  tokenOhlcv: onFirstCall(() => createTokenOhlcvEndpoint(instanceReadSource)),
  launches: onFirstCall(() => createLaunchesEndpoint(instanceLaunchesSource)),
  deploy: instanceDeploySource,
  paidDeploy: {
    offered: paidDeploysOffered,
    handle: async (request) => (await paidDoor()).endpoint.fetch(request),
  },
}
