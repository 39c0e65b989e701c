import { BaseError } from '../platform/errors.js'

/** What a read looked for does not exist (404 with `code`); never cached, so it answers as soon as it does. */
export class ReadNotFoundError extends BaseError {
  override name = 'ReadNotFoundError'
  constructor(code: string, message: string) {
    super(message, { code, httpStatus: 404 })
  }
}
