import { z } from 'zod'
import { parseRecord } from '../store/records.js'
import { type Launch, launchSchema } from './schema.js'

// What goes over a chain's events channel (`chainEventsChannel` in keys.ts): one message per event, one
// JSON object on one line (Upstash frames a message as the rest of one `data:` line), always the same envelope:
//
//   { "kind": "launch", "at": <ms>, "data": <Launch, as schema.ts has it> }
//       a deploy seen confirmed (a receipt or the tick's follow-up), published once per deploy by the instance whose
//       signal write added it (launchSignal.ts); `at` is the time the signal holds it under, so a catch-up read of the
//       signal and the messages agree on what "since" means.
//   { "kind": "trade", "at": <ms>, "data": <the swap, as a stream's `trade` event has it> }
//       a swap on a launched token's pool, published once by the instance holding the trade watch's lease
//       (tradeWatch.ts); a new holder may publish again the few a gone holder had published last, so
//       listeners send each (its txHash and logIndex) once. Listeners skip a kind they do not know, or one whose data is
//       not what it says: a new kind ships before its listeners do.
//   { "kind": "echo", "at": <ms>, "data": { "id": <the listener's own id> } }
//       a listener's check that its subscription still delivers (watch.ts): not an event, every listener
//       takes it only as a sign that its own stream is alive.
//
// Every instance subscribes to the one channel of its chain and takes what it knows: one subscription carries them all.
// No viem: the stream loads this module.

/** The envelope every message has: a kind, when it happened (epoch ms, the publisher's clock), and the kind's data. */
const envelopeSchema = z.object({ kind: z.string(), at: z.number(), data: z.unknown() })

/** The kinds of message a channel carries (see the top of this file). */
export type ChainEventKind = 'launch' | 'trade' | 'echo'

/** A swap on a launched token's pool, as it goes on the channel and to streams (tradeEvents.ts's `TradeEvent`). */
const tradeSchema = z.object({
  kind: z.literal('trade'),
  token: z.string(),
  poolId: z.string(),
  side: z.enum(['buy', 'sell']),
  amountEth: z.string(),
  amountToken: z.string(),
  priceEth: z.string(),
  txHash: z.string(),
  blockNumber: z.string(),
  logIndex: z.number(),
  at: z.string().nullable(),
})

/** A trade read back from the channel. */
export type ChannelTrade = z.infer<typeof tradeSchema>

/** A message this service's listeners act on, read and checked. */
export type ChainEvent =
  | { kind: 'launch'; at: number; launch: Launch }
  | { kind: 'trade'; at: number; trade: ChannelTrade }
  | { kind: 'echo'; at: number; id: string }

/** One message as it goes on the channel (one line of JSON). */
export function encodeChainEvent(kind: ChainEventKind, at: number, data: unknown): string {
  return JSON.stringify({ kind, at: Math.round(at), data })
}

/** The launch message of `launch`, seen confirmed at `at` (ms). */
export const launchMessage = (launch: Launch, at: number): string => encodeChainEvent('launch', at, launch)

/** The trade message of `trade`, published at `at` (ms). */
export const tradeMessage = (trade: ChannelTrade, at: number): string => encodeChainEvent('trade', at, trade)

/** The echo message of the listener `id`, sent at `at` (ms). */
export const echoMessage = (id: string, at: number): string => encodeChainEvent('echo', at, { id })

/** A message read back: the event when its kind is one this service acts on and its data is what that kind says; else null. */
export function readChainEvent(raw: string): ChainEvent | null {
  const envelope = parseRecord(envelopeSchema, raw)
  if (!envelope) return null
  if (envelope.kind === 'launch') {
    const launch = launchSchema.safeParse(envelope.data)
    return launch.success ? { kind: 'launch', at: envelope.at, launch: launch.data } : null
  }
  if (envelope.kind === 'trade') {
    const trade = tradeSchema.safeParse(envelope.data)
    return trade.success ? { kind: 'trade', at: envelope.at, trade: trade.data } : null
  }
  if (envelope.kind === 'echo') {
    const echo = z.object({ id: z.string() }).safeParse(envelope.data)
    return echo.success ? { kind: 'echo', at: envelope.at, id: echo.data.id } : null
  }
  return null
}
