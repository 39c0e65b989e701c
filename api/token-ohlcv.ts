import { createTokenOhlcvEndpoint } from '../lib/read/ohlcvEndpoint.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/token-ohlcv?address=`: a token's candles. */
export default createTokenOhlcvEndpoint(getReadServices)
