import { defaultTickEndpoint } from '../lib/tick/handler.js'

/** `GET`/`POST /api/tick`: the scheduled work. */
export default defaultTickEndpoint()
