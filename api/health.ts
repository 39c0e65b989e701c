import { defaultHealthEndpoint } from '../lib/health/handler.js'

/** `GET /api/health`. */
export default defaultHealthEndpoint()
