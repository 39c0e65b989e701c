import { createHealthEndpoint } from '../lib/health/endpoint.js'
import { instanceHealthSource } from '../lib/health/instance.js'

/** `GET /api/health`. */
export default createHealthEndpoint(instanceHealthSource)
