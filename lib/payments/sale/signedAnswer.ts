import type { DeployServices } from '../../deploy/services.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import { offerReceiptExtension, signOfferReceipt } from '../discovery/offerReceipt.js'
import type { PaymentSummary } from '../discovery/paidDoorSchemas.js'
import { paymentResponseHeader } from '../door/doorAnswers.js'
import type { PaidDeployContext } from './purchase.js'

// A paid deploy's answer once it went out, with its signed receipt (discovery/offerReceipt.ts): x402 puts it in the
// PAYMENT-RESPONSE header's extensions, and the body carries the same object in `payment.receipt`.

/** What {@link withOfferReceipt} takes of the paid door's context: the signer and logger, the clock, the door's URL. */
export type WithOfferReceiptContext = Pick<PaidDeployContext, 'clock' | 'resourceUrl'> & {
  services: Pick<DeployServices, 'getSigner' | 'logger'>
}

/**
 * The answer of a paid deploy that went out, with its receipt: in PAYMENT-RESPONSE's extensions and in `payment`.
 * Any other answer is returned as it is (a credit or an uncertain broadcast delivered nothing known yet). When the
 * signer cannot sign it (KMS down or slow), the deploy is answered without a receipt and a `kms_unavailable` line says
 * so: the deploy went out and its answer must not be lost for want of a receipt.
 */
export async function withOfferReceipt(context: WithOfferReceiptContext, answer: HttpAnswer): Promise<HttpAnswer> {
  const { body } = answer
  const payment = body.payment as PaymentSummary | undefined
  const { getSigner, logger } = context.services
  if (body.ok !== true || !payment || !getSigner) return answer
  try {
    const receipt = await signOfferReceipt({
      signer: await getSigner(),
      payment,
      resourceUrl: context.resourceUrl,
      issuedAt: Math.floor(context.clock.now() / 1000),
    })
    return {
      ...answer,
      body: { ...body, payment: { ...payment, receipt } },
      headers: { ...answer.headers, ...paymentResponseHeader(payment, offerReceiptExtension(receipt)) },
    }
  } catch (error) {
    logger.error('kms_unavailable', {
      operation: 'receipt',
      error: errorName(error),
      effect: 'answered without the receipt',
      txHash: typeof body.txHash === 'string' ? body.txHash : undefined,
    })
    return answer
  }
}
