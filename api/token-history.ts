import { createTokenHistoryEndpoint } from '../lib/read/endpoint.js'
import { instanceReadSource } from '../lib/read/instance.js'

/** `GET /api/token-history?address=`: one token over 24 h or 7 d. */
export default createTokenHistoryEndpoint(instanceReadSource)
