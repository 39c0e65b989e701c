import { type ActivationReader, createActivationReader } from '../../chain/activation.js'
import { createChainClient } from '../../chain/client.js'
import { eip712DomainProblems, readPaymentAsset } from '../../chain/paymentAsset.js'
import type { Clock } from '../../platform/clock.js'
import { ConfigError } from '../../platform/config.js'
import { perInstanceAsync } from '../../platform/perInstance.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { type PaymentsConfig, type PaymentsSettings, pricedPaymentsConfig } from '../config.js'

// What the paid door reads from the chain before it offers a deploy: its asset's decimals and EIP-712 domain (once
// per instance: a token's are fixed) and which B20 variants are active (kept a few minutes). Loaded by the first
// deploy request (viem); a throttled request, a receipt or an OPTIONS never loads it.

/** The door's settings checked against the asset on chain, or the misconfiguration that stops it selling. */
export type PricedConfig = Result<{ config: PaymentsConfig }, 'CONFIG_INVALID', { error: ConfigError }>

/** The paid door's view of the chain. */
export type DoorChain = {
  /**
   * The settings priced at the asset's own `decimals()` and checked against its EIP-712 domain, read once. An RPC
   * that cannot answer rejects, and the next request asks again; a misconfiguration is kept for the instance.
   */
  priced: () => Promise<PricedConfig>
  /** Which B20 variants the network has switched on (Base's ActivationRegistry), kept a few minutes. */
  activation: ActivationReader
}

/** Parameters of {@link createDoorChain}. */
export type CreateDoorChainParameters = {
  settings: PaymentsSettings
  rpcUrl: string
  /** The door's clock: how old the activation it keeps is. */
  clock: Pick<Clock, 'now'>
}

/** The door's chain reads over the configured RPC. */
export function createDoorChain({ settings, rpcUrl, clock }: CreateDoorChainParameters): DoorChain {
  const client = createChainClient({ rpcUrl, chainId: settings.chainId })
  const { address, name, version } = settings.asset
  return {
    priced: perInstanceAsync(async (): Promise<PricedConfig> => {
      const facts = await readPaymentAsset({ client, address })
      const domain = { name, version, chainId: settings.chainId, verifyingContract: address }
      try {
        return accepted({
          config: pricedPaymentsConfig(settings, { decimals: facts.decimals, domainProblems: eip712DomainProblems({ facts, domain }) }),
        })
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        return refused('CONFIG_INVALID', { error })
      }
    }),
    activation: createActivationReader({ client, now: clock.now }),
  }
}
