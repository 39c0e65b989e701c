import { createTokenSearchEndpoint } from '../lib/read/endpoint.js'
import { instanceReadSource } from '../lib/read/instance.js'

/** `GET /api/token-search?q=`: Base pairs matching a symbol or name. */
export default createTokenSearchEndpoint(instanceReadSource)
