import { NotFoundError } from '../platform/errors.js'

/** What a read looked for does not exist (404 with `code`); never cached, so it answers as soon as it does. */
export class ReadNotFoundError extends NotFoundError {
  override name = 'ReadNotFoundError'
}
