import type { B20Variant } from '../../chain/b20Variants.js'
import { type DeployFailure, failure } from '../outcome.js'

// The answer to a deploy of a B20 variant the network has switched off (Base's ActivationRegistry), given by both
// doors before anything is simulated, signed, asked for or settled. Loads no chain code: the paid door's unpaid path
// builds it too.

/** `VARIANT_NOT_ACTIVE`: the variant is off on this network; `effect` says what did not happen (nothing signed, charged). */
export function variantNotActive(variant: B20Variant, effect: string): DeployFailure {
  return failure(
    'VARIANT_NOT_ACTIVE',
    `B20's ${variant} variant is not activated on this network (Base's ActivationRegistry says so); ${effect}. Retry once it is activated, or deploy the other variant.`,
  )
}
