import { createLaunchesEndpoint } from '../lib/launches/endpoint.js'
import { instanceLaunchesSource } from '../lib/launches/instance.js'

/** `GET /api/launches`: the tokens deployed through this service. */
export default createLaunchesEndpoint(instanceLaunchesSource)
