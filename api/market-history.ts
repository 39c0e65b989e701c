import { createMarketHistoryEndpoint } from '../lib/read/endpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/market-history`. */
export default createMarketHistoryEndpoint(getReadServices)
