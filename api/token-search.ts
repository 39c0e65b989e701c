import { createTokenSearchEndpoint } from '../lib/read/endpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/token-search?q=`. */
export default createTokenSearchEndpoint(getReadServices)
