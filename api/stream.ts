import { defaultStreamEndpoint } from '../lib/stream/endpoint.js'

/** `GET /api/stream`: the control room as Server-Sent Events. */
export default defaultStreamEndpoint()
