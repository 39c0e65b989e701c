import { createControlRoomEndpoint } from '../lib/read/endpoint.js'
import { instanceReadSource } from '../lib/read/instance.js'

/** `GET /api/control-room`: the top 100 Base tokens, trending, stats and commentary. */
export default createControlRoomEndpoint(instanceReadSource)
