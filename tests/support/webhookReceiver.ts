import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** One request the receiver got: its headers and raw body. */
export type WebhookDelivery = { headers: Record<string, string>; body: string }

/** A loopback HTTP server that receives webhooks as an agent's backend would. */
export type WebhookReceiver = {
  url: string
  deliveries: WebhookDelivery[]
  /** The statuses of the next answers, in order; after them every answer is 200. */
  answerWith(...statuses: number[]): void
  /** Waits until at least `count` deliveries have arrived; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<WebhookDelivery[]>
  /**
   * Verifies a delivery with the `standardwebhooks` library as a receiver whose clock reads `now` (the library refuses
   * a timestamp more than 5 minutes off its clock); answers the parsed body. Throws when it does not verify.
   */
  verify(delivery: WebhookDelivery, secret: string, now: number): { type: string; timestamp: string; data: Record<string, unknown> }
  close(): Promise<void>
}

const flatten = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]))

/** Starts a receiver on a free loopback port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = []
  const statuses: number[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      deliveries.push({ headers: flatten(request.headers), body: Buffer.concat(chunks).toString('utf8') })
      response.writeHead(statuses.shift() ?? 200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks/deploys`,
    deliveries,
    answerWith: (...next) => void statuses.push(...next),
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      while (deliveries.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, got ${deliveries.length}`)
        await new Promise((r) => setTimeout(r, 20))
      }
      return deliveries
    },
    verify(delivery, secret, now) {
      const realNow = Date.now
      Date.now = () => now
      try {
        return new Webhook(secret).verify(delivery.body, delivery.headers) as ReturnType<WebhookReceiver['verify']>
      } finally {
        Date.now = realNow
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
