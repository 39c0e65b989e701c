import { defaultTickEndpoint } from '../lib/tick/endpoint.js'

/** `GET`/`POST /api/tick`: the scheduled work. */
export default defaultTickEndpoint()
