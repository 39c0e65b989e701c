import { createMarketHistoryEndpoint } from '../lib/read/endpoint.js'
import { instanceReadSource } from '../lib/read/instance.js'

/** `GET /api/market-history`: the whole top 100 over 24 h or 7 d. */
export default createMarketHistoryEndpoint(instanceReadSource)
