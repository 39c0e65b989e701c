import { createTokenSearchEndpoint } from '../lib/read/endpoints.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/token-search?q=`. */
export default createTokenSearchEndpoint(getReadServices)
