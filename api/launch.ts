import { createLaunchEndpoint } from '../lib/launches/endpoint.js'
import { instanceLaunchSource } from '../lib/launches/instance.js'

/** `GET /api/launches/{address}` (vercel.json rewrites it here): one launch with its powers and pool now. */
export default createLaunchEndpoint(instanceLaunchSource)
