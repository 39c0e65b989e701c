import { defaultHealthEndpoint } from '../lib/health/endpoint.js'

/** `GET /api/health`. */
export default defaultHealthEndpoint()
