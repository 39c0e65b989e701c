import { createTokenHistoryEndpoint } from '../lib/read/endpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/token-history?address=`. */
export default createTokenHistoryEndpoint(getReadServices)
