import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { corsHeaders, errorAnswer, notAllowedAnswer, preflightOperation, redirectAnswer, retryAfterHeaders } from '../platform/routeDocs.js'

// `GET /api/stream` as the OpenAPI document declares it.

/** `GET /api/stream`, as the OpenAPI document declares it. */
export const streamOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'streamControlRoom',
    summary: 'The control room as Server-Sent Events: the body of GET /api/control-room at once, then each time it changes',
    description:
      'A keyless, CORS-open event stream. It starts with `retry: 3000`, then one `control-room` event whose `data:` line is ' +
      'exactly the body GET /api/control-room serves and whose `id:` is that body’s ETag without quotes. Each new body ' +
      '(every 30 s while the market moves) is a new event; a `: heartbeat` comment goes out every 15 s. The stream ends ' +
      'cleanly after STREAM_MAX_SECONDS (default 280), and EventSource reconnects by itself: with `Last-Event-ID` equal ' +
      'to the current id it gets no repeated body, only heartbeats until the next change. While PUBLIC_LAUNCHES is on, a ' +
      '`launch` event (no id; its data one entry as GET /api/launches lists it) follows within 5 s each deploy the ' +
      'service learns is confirmed, on every instance.',
    parameters: [
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description: 'The id of the last event received (EventSource sends it on reconnect)',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '308': redirectAnswer,
      '200': {
        description: 'The event stream',
        headers: {
          ...corsHeaders,
          RateLimit: { description: '"stream";r=<streams this client may still open>;t=0', required: true, schema: { type: 'string' } },
          'RateLimit-Policy': { description: '"stream";q=<STREAM_MAX_PER_CLIENT>', required: true, schema: { type: 'string' } },
        },
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            example:
              'retry: 3000\n\nevent: control-room\nid: 5f2c9a…\ndata: {"liveActivity":[…],"trending":[…],"stats":{…},"commentary":"…"}\n\n: heartbeat\n\nevent: launch\ndata: {"address":"0xB2…","name":"Example Token","symbol":"EXT",…,"status":"confirmed","market":null}\n\n',
          },
        },
      },
      '405': notAllowedAnswer,
      '429': {
        ...errorAnswer('This client holds STREAM_MAX_PER_CLIENT streams already (RATE_LIMITED)'),
        headers: {
          ...retryAfterHeaders,
          RateLimit: { description: '"stream";r=0;t=<seconds>', required: true, schema: { type: 'string' } },
          'RateLimit-Policy': { description: '"stream";q=<STREAM_MAX_PER_CLIENT>', required: true, schema: { type: 'string' } },
        },
      },
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
      '503': {
        ...errorAnswer(
          'The instance holds STREAM_MAX_PER_INSTANCE streams (STREAMS_FULL), or no market data could be had yet (UPSTREAM_UNAVAILABLE)',
        ),
        headers: retryAfterHeaders,
      },
    },
  },
  options: preflightOperation,
}
