import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

// The script of a web page that pays the paid door: @x402/fetch with the exact EVM scheme over a viem local account,
// as a browser wallet would hold it. Bundled for the browser by `bundleBrowserPayer` (paidDoorPage.ts); it puts
// `payAndDeploy` on the page's global object for the test to call.

/** Parameters of {@link payAndDeploy}. */
export type PayAndDeployParameters = { url: string; privateKey: Hex; body: unknown }

/** What the page saw: the door's status and body, or the error fetch threw (a request the browser blocked). */
export type PayAndDeployReturnType = { status: number; body: unknown } | { error: string }

/** POSTs the body to the door through @x402/fetch, which pays the door's 402 and sends the request again. */
export async function payAndDeploy({ url, privateKey, body }: PayAndDeployParameters): Promise<PayAndDeployReturnType> {
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(privateKey))))
  const payingFetch = wrapFetchWithPayment(fetch, client)
  try {
    const answer = await payingFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: answer.status, body: await answer.json() }
  } catch (error) {
    return { error: String(error) }
  }
}

Object.assign(globalThis, { payAndDeploy })
