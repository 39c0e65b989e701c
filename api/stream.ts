import { createStreamEndpoint } from '../lib/stream/endpoint.js'
import { instanceStreamSource } from '../lib/stream/instance.js'

/** `GET /api/stream`: the control room and launches as Server-Sent Events. */
export default createStreamEndpoint(instanceStreamSource)
