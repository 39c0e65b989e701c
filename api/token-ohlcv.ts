import { createTokenOhlcvEndpoint } from '../lib/read/endpoint.js'
import { instanceReadSource } from '../lib/read/instance.js'

/** `GET /api/token-ohlcv?address=`: a token's candles. */
export default createTokenOhlcvEndpoint(instanceReadSource)
