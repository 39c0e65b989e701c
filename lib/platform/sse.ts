// Server-Sent Events as the WHATWG HTML standard frames them: `event:`, `id:` and one `data:` line, a blank line
// ending each event, a line starting with `:` as a comment, and `retry:` as the reconnect delay. Pure: no I/O.

const encoder = new TextEncoder()

/** Parameters of {@link sseEvent}. */
export type SseEventParameters = {
  event: string
  /**
   * What the browser sends back as `Last-Event-ID` when it reconnects; absent: the event leaves the last id as it was
   * (a `launch` event must not stand in for the control room's id).
   */
  id?: string
  /** One line of data (a JSON body as `JSON.stringify` writes it has no line break). */
  data: string | Uint8Array
}

/** One event, encoded once: every stream that sends it shares these bytes. */
export function sseEvent({ event, id, data }: SseEventParameters): Uint8Array {
  const head = encoder.encode(`event: ${oneLine(event)}\n${id === undefined ? '' : `id: ${oneLine(id)}\n`}data: `)
  const body = typeof data === 'string' ? encoder.encode(oneLine(data)) : data
  const frame = new Uint8Array(head.byteLength + body.byteLength + 2)
  frame.set(head, 0)
  frame.set(body, head.byteLength)
  frame.set([10, 10], head.byteLength + body.byteLength)
  return frame
}

/** A comment line: ignored by `EventSource`, it keeps idle connections open through proxies. */
export function sseComment(text: string): Uint8Array {
  return encoder.encode(`: ${oneLine(text)}\n\n`)
}

/** The reconnect delay `EventSource` uses after the stream ends or fails. */
export function sseRetry(milliseconds: number): Uint8Array {
  return encoder.encode(`retry: ${Math.max(0, Math.round(milliseconds))}\n\n`)
}

/** The event id of a cached body: its ETag without quotes or weakness mark, the same on every instance. */
export function eventIdOf(etag: string): string {
  return etag.replace(/^W\//, '').replaceAll('"', '')
}

/** A field value on one line: a line break would end the field early, and could start a field of the sender's choosing. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ')
}

/** Schedules `run` after `ms`; answers the function that cancels it. */
export type Schedule = (run: () => void, ms: number) => () => void

/**
 * More events the feed's streams get besides the room (the launches): started when the first stream opens with a way
 * to send a frame to every stream that has had its first event, stopped when the last one closes.
 */
export type FeedSource = (send: (frame: Uint8Array) => void, schedule: Schedule) => { stop(): void }
