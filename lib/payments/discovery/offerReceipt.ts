import { type EIP712SignedReceipt, OFFER_RECEIPT, type ReceiptPayload, signReceiptEIP712 } from '@x402/extensions/offer-receipt'
import type { TypedDataDefinition } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import type { PaymentSummary } from './paidDoorSchemas.js'

// The receipt of a paid deploy: x402's `offer-receipt` extension in its EIP-712 form, signed through KMS by the deploy
// signer, the key that signed and sent the deploy's transaction. Whoever holds the answer can recover the receipt's
// signer (the extension's `verifyReceiptSignatureEIP712`) and compare it with that transaction's `from` on chain: the
// service, and no one else, says this payer paid for this door. It goes where x402 puts it, in the PAYMENT-RESPONSE
// header's `extensions["offer-receipt"].info.receipt`, and the same object in the body's `payment.receipt`.

/** The receipt payload's schema version, as @x402/extensions 2.27 writes it (its `EXTENSION_VERSION`). */
const RECEIPT_VERSION = 1

/**
 * The JSON Schema of the extension's `info`, as @x402/extensions 2.27 writes it beside a receipt (its `RECEIPT_SCHEMA`,
 * which it does not export): x402 v2 extensions carry their `info` and the schema that validates it.
 */
export const OFFER_RECEIPT_INFO_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    receipt: {
      type: 'object',
      properties: {
        format: { type: 'string' },
        payload: {
          type: 'object',
          properties: {
            version: { type: 'integer' },
            network: { type: 'string' },
            resourceUrl: { type: 'string' },
            payer: { type: 'string' },
            issuedAt: { type: 'integer' },
            transaction: { type: 'string' },
          },
          required: ['version', 'network', 'resourceUrl', 'payer', 'issuedAt'],
        },
        signature: { type: 'string' },
      },
      required: ['format', 'signature'],
    },
  },
  required: ['receipt'],
} as const

/** Parameters of {@link signOfferReceipt}. */
export type SignOfferReceiptParameters = {
  /** The deploy signer: its typed-data signature is a KMS `Sign` over the EIP-712 digest. */
  signer: Pick<KmsAccount, 'signTypedData'>
  /** What was paid: the payer, the network and the settlement's transaction. */
  payment: Pick<PaymentSummary, 'payer' | 'network' | 'transaction'>
  /** The paid resource: this door's URL, as the 402's `resource.url` names it. */
  resourceUrl: string
  /** When the receipt is issued, in Unix seconds (the door's clock). */
  issuedAt: number
}

/**
 * A signed receipt of the extension's EIP-712 form. The payload is the extension's own fields with the settlement's
 * transaction included (verifiability over privacy: the answer names it anyway); the extension's `signReceiptEIP712`
 * sets the domain and types.
 */
export async function signOfferReceipt({
  signer,
  payment,
  resourceUrl,
  issuedAt,
}: SignOfferReceiptParameters): Promise<EIP712SignedReceipt> {
  const payload: ReceiptPayload = {
    version: RECEIPT_VERSION,
    network: payment.network,
    resourceUrl,
    payer: payment.payer,
    issuedAt,
    transaction: payment.transaction,
  }
  // The extension's signing callback is typed loosely (any types, any message); what it passes is its own Receipt.
  const signature = await signReceiptEIP712(payload, (typedData) => signer.signTypedData(typedData as unknown as TypedDataDefinition))
  return { format: 'eip712', payload, signature }
}

/** The `offer-receipt` entry of a SettleResponse's `extensions`: the receipt as `info`, and its schema. */
export function offerReceiptExtension(receipt: EIP712SignedReceipt): Record<string, unknown> {
  return { [OFFER_RECEIPT]: { info: { receipt }, schema: OFFER_RECEIPT_INFO_SCHEMA } }
}
