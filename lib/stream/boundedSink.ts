/** The most bytes a stream may have waiting for its reader; past it the reader is too slow and the stream is dropped. */
export const STREAM_BUFFER_BYTES = 1024 * 1024

/** One open stream as its feeder sees it: a sink that holds at most so many bytes for its reader. */
export type BoundedSink = {
  /** The client the stream counts against (its address, or its /64). */
  readonly client: string
  /** Queues `bytes` for the reader; drops the stream, and answers false, when its buffer would pass the limit. */
  send(bytes: Uint8Array): boolean
  /** Ends the stream cleanly: what was queued is still delivered, then `EventSource` reconnects by itself. */
  end(): void
}

/** Parameters of {@link openBoundedSink}. */
export type OpenBoundedSinkParameters = {
  client: string
  /** Called once when the stream is over, however it ended (ended, dropped, or the client went away). */
  onClose: () => void
  maxBufferedBytes?: number
}

/** Result of {@link openBoundedSink}: the sink, and the body of the answer that carries it. */
export type OpenBoundedSinkReturnType = { sink: BoundedSink; body: ReadableStream<Uint8Array> }

/**
 * A stream body fed by pushes, bounded: the queue counts bytes, and a push that would pass `maxBufferedBytes` drops the
 * stream instead of growing it, so a stalled reader holds at most that much and never delays the others. The bytes
 * queued are the caller's, shared by every stream it sends them to.
 */
export function openBoundedSink(parameters: OpenBoundedSinkParameters): OpenBoundedSinkReturnType {
  const { client, onClose, maxBufferedBytes = STREAM_BUFFER_BYTES } = parameters
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  const close = () => {
    if (!open) return
    open = false
    onClose()
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c
      },
      cancel: close, // the client went away, or the server stopped reading
    },
    new ByteLengthQueuingStrategy({ highWaterMark: maxBufferedBytes }),
  )
  const sink: BoundedSink = {
    client,
    send(bytes) {
      if (!open) return false
      if ((controller.desiredSize ?? 0) < bytes.byteLength) {
        controller.error(new Error('the reader fell too far behind'))
        close()
        return false
      }
      controller.enqueue(bytes)
      return true
    },
    end() {
      if (!open) return
      controller.close()
      close()
    },
  }
  return { sink, body }
}
