import { createControlRoomEndpoint } from '../lib/read/endpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/control-room`. */
export default createControlRoomEndpoint(getReadServices)
