import { createMcpEndpoint } from '../lib/mcp/endpoint.js'
import { instanceMcpSource } from '../lib/mcp/instance.js'

/** `POST /api/mcp`: the read endpoints and the deploy actions as MCP tools. */
export default createMcpEndpoint(instanceMcpSource)
