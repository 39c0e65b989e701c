import { defaultStreamEndpoint } from '../lib/stream/handler.js'

/** `GET /api/stream`: the control room as Server-Sent Events. */
export default defaultStreamEndpoint()
