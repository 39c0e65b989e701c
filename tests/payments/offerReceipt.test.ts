import { KMSClient } from '@aws-sdk/client-kms'
import { decodePaymentResponseHeader } from '@x402/core/http'
import {
  createEIP712OfferReceiptIssuer,
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  type EIP712SignedReceipt,
  extractReceiptFromResponse,
  OFFER_RECEIPT,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKmsAccount, type KmsAccount } from '../../lib/chain/kmsAccount.js'
import { OFFER_RECEIPT_INFO_SCHEMA, signOfferReceipt } from '../../lib/payments/discovery/offerReceipt.js'
import type { PaymentSummary } from '../../lib/payments/discovery/paidDoorSchemas.js'
import { settledAnswer } from '../../lib/payments/door/doorAnswers.js'
import { withOfferReceipt } from '../../lib/payments/sale/signedAnswer.js'
import { createLogger } from '../../lib/platform/log.js'
import { type FakeKms, startFakeKms } from '../support/fakeKms.js'
import { createTestClock } from '../support/testClock.js'

// The receipt of a paid deploy, in process over the fake KMS and the real AWS SDK: signed through KMS and recovered by
// the extension's own verifier, in the very shape the extension's own hook writes, and left out (the answer kept,
// a line logged) when KMS cannot sign it. tests/support/paidDoorCases.ts checks it over a real paid deploy.

const URL_OF_DOOR = 'https://svc.test/api/x402/deploy'
const payment: PaymentSummary = {
  payer: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  transaction: `0x${'ab'.repeat(32)}`,
  amount: '500000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  network: 'eip155:8453',
}
const deployed = { ok: true, status: 'broadcast', txHash: `0x${'cd'.repeat(32)}` }

describe('the receipt of a paid deploy', () => {
  let kms: FakeKms
  let account: KmsAccount
  beforeAll(async () => {
    kms = await startFakeKms()
    const client = new KMSClient({
      region: 'us-east-1',
      endpoint: kms.url,
      credentials: { accessKeyId: 'AKIARECEIPTTEST0001', secretAccessKey: 'receipt-test-secret-not-real' },
      maxAttempts: 1,
    })
    account = await createKmsAccount({ kms: client, keyId: kms.keyId, deadline: createTestClock(1_800_000_000_000).clock.deadline })
  })
  afterAll(() => kms?.close())

  it('is signed through KMS and recovers, with the extension’s verifier, to the KMS key’s address', async () => {
    const before = kms.calls.filter((c) => c === 'Sign').length
    const receipt = await signOfferReceipt({ signer: account, payment, resourceUrl: URL_OF_DOOR, issuedAt: 1_800_000_000 })
    expect(kms.calls.filter((c) => c === 'Sign').length).toBe(before + 1)
    const { signer, payload } = await verifyReceiptSignatureEIP712(receipt)
    expect(signer).toBe(account.address)
    expect(payload).toEqual({
      version: 1,
      network: 'eip155:8453',
      resourceUrl: URL_OF_DOOR,
      payer: payment.payer,
      issuedAt: 1_800_000_000,
      transaction: payment.transaction,
    })
    // A receipt changed after signing recovers to someone else.
    const forged = { ...receipt, payload: { ...receipt.payload, payer: '0x000000000000000000000000000000000000dEaD' } }
    expect((await verifyReceiptSignatureEIP712(forged)).signer).not.toBe(account.address)
  })

  it('is written in PAYMENT-RESPONSE as the extension’s own hook writes it, and in the body', async () => {
    const clock = createTestClock(1_800_000_123_456)
    const answer = await withOfferReceipt(
      {
        services: { getSigner: async () => account, logger: createLogger({ write: () => undefined }) },
        clock: clock.clock,
        resourceUrl: URL_OF_DOOR,
      },
      settledAnswer(deployed, payment),
    )
    const settlement = decodePaymentResponseHeader(answer.headers?.['payment-response'] ?? '')
    const entry = settlement.extensions?.[OFFER_RECEIPT] as { info: { receipt: EIP712SignedReceipt }; schema: unknown }
    const receipt = extractReceiptFromResponse(new Response(null, { headers: answer.headers })) as EIP712SignedReceipt
    expect(receipt).toEqual(entry.info.receipt)
    expect(answer.body.payment).toEqual({ ...payment, receipt })
    expect(receipt.payload).toMatchObject({ resourceUrl: URL_OF_DOOR, issuedAt: 1_800_000_123 })
    expect(settlement).toMatchObject({ success: true, payer: payment.payer, transaction: payment.transaction, network: 'eip155:8453' })
    // The extension's own server hook, signing with the same account: the same entry, but for its own issuedAt.
    const hook = createOfferReceiptExtension(createEIP712OfferReceiptIssuer(`did:pkh:eip155:1:${account.address}`, account.signTypedData))
    const theirs = (await hook.enrichSettlementResponse!(declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT], {
      result: { success: true, payer: payment.payer, network: payment.network, transaction: payment.transaction },
      transportContext: { request: { adapter: { getUrl: () => URL_OF_DOOR } } },
    } as never)) as { info: { receipt: EIP712SignedReceipt }; schema: unknown }
    expect(entry.schema).toEqual(OFFER_RECEIPT_INFO_SCHEMA)
    expect(theirs.schema).toEqual(entry.schema)
    expect({ ...theirs.info.receipt.payload, issuedAt: 0 }).toEqual({ ...receipt.payload, issuedAt: 0 })
    expect((await verifyReceiptSignatureEIP712(theirs.info.receipt)).signer).toBe(account.address)
  })

  it('is left out when KMS cannot sign it: the deploy’s answer as it was, and a kms_unavailable line', async () => {
    const lines: string[] = []
    const context = {
      services: { getSigner: async () => account, logger: createLogger({ write: (line) => lines.push(line) }) },
      clock: createTestClock(1_800_000_000_000).clock,
      resourceUrl: URL_OF_DOOR,
    }
    const plain = settledAnswer(deployed, payment)
    kms.setDown(true)
    let answer: Awaited<ReturnType<typeof withOfferReceipt>>
    try {
      answer = await withOfferReceipt(context, plain)
    } finally {
      kms.setDown(false)
    }
    expect(answer).toEqual(plain)
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        event: 'kms_unavailable',
        operation: 'receipt',
        effect: 'answered without the receipt',
        txHash: deployed.txHash,
      }),
    ])
    // A signer that cannot even be had (GetPublicKey failing) is the same.
    const noSigner = { ...context, services: { ...context.services, getSigner: () => Promise.reject(new Error('KMS down')) } }
    expect(await withOfferReceipt(noSigner, plain)).toEqual(plain)
  })

  it('is given only to a deploy that went out, never to a credit or a refusal', async () => {
    const context = {
      services: { getSigner: async () => account, logger: createLogger({ write: () => undefined }) },
      clock: createTestClock(1_800_000_000_000).clock,
      resourceUrl: URL_OF_DOOR,
    }
    const before = kms.calls.length
    const uncertain = settledAnswer({ ok: false, code: 'BROADCAST_UNCERTAIN', error: 'x' }, payment)
    expect(await withOfferReceipt(context, uncertain)).toEqual(uncertain)
    const refused = { status: 200, body: { ok: false, code: 'DEPLOY_CAP_REACHED' }, headers: {} }
    expect(await withOfferReceipt(context, refused)).toEqual(refused)
    expect(kms.calls.length).toBe(before)
  })
})
