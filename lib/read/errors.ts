/** What a read looked for does not exist (404 with `code`); never cached, so it answers as soon as it does. */
export class ReadNotFoundError extends Error {
  override name = 'ReadNotFoundError'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
