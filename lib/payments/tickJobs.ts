import type { DeployTickContext } from '../deploy/tickJobs.js'
import type { TickJob } from '../platform/tickJob.js'

// The paid door's tick job: the ledger's open payments, decided from the chain.

/** Paid deploys whose settle nobody saw end, decided from the chain a few at a time (no signer: none were paid). */
export const paymentsJob: TickJob<DeployTickContext> = {
  name: 'payments',
  details:
    'open, decided, paid, refused, unknown, busy, skipped, poolCredits: paid deploys’ payments left settling or unknown, decided from the chain; a failed pool’s part of the price credited',
  needs: ['signer'],
  async run({ deploy }) {
    const services = await deploy()
    const { store, config } = services
    if (!store) return { skipped: 'no shared store' }
    const [{ reconcilePayments }, { creditFailedPools }, { paymentKeys }, { deployHistoryKeys }] = await Promise.all([
      import('./ledger/reconcile.js'),
      import('./ledger/poolCredits.js'),
      import('./keys.js'),
      import('../deploy/keys.js'),
    ])
    const keys = paymentKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
    const reconciled = await reconcilePayments({ services: { ...services, store }, keys })
    const deployKeys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
    const poolCredits = await creditFailedPools({ store, keys, deployKeys, now: services.clock.now() })
    return { ...reconciled, poolCredits }
  },
}
