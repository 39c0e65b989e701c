import { loadLaunchesConfig } from '../lib/launches/config.js'
import { createLaunchesEndpoint } from '../lib/launches/endpoint.js'
import { perInstance } from '../lib/platform/perInstance.js'
import { getReadServices } from '../lib/read/services.js'

/** `GET /api/launches`: the tokens deployed through this service. */
export default createLaunchesEndpoint(
  getReadServices,
  perInstance(() => loadLaunchesConfig(process.env)),
)
