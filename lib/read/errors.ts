import { BaseError, NotFoundError } from '../platform/errors.js'

/** What a read looked for does not exist (404 with `code`); never cached, so it answers as soon as it does. */
export class ReadNotFoundError extends NotFoundError {
  override name = 'ReadNotFoundError'
}

/** The cached control room does not parse: the tick's jobs have no tokens to work from. */
export class UnreadableControlRoomError extends BaseError<'CONTROL_ROOM_UNREADABLE'> {
  override name = 'UnreadableControlRoom'
  constructor(message: string) {
    super(message, { code: 'CONTROL_ROOM_UNREADABLE' })
  }
}
