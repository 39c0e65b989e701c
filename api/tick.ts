import { createTickEndpoint } from '../lib/tick/endpoint.js'
import { instanceTickSource } from '../lib/tick/instance.js'

/** `GET`/`POST /api/tick`: the scheduled work. */
export default createTickEndpoint(instanceTickSource)
