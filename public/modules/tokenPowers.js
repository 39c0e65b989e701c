// A launched token's powers on its page, as the chain has them now (GET /api/launches/{address}, cached 15 s): who can
// mint, pause and edit its metadata, its cap and supply, what the service still holds, the fees its pool's position
// earned, and a plain warning when anyone can still mint it. Loaded with the first launch's page.
import { getJson } from './data.js'
import { byId, state } from './state.js'
import { fieldRows } from './tokenFacts.js'

/** @typedef {import('./state.js').LaunchDetail} LaunchDetail */
/** @typedef {NonNullable<LaunchDetail['powers']>} Powers */

/**
 * Accounts as the page lists them.
 * @param {string[]} accounts
 * @param {string} none what to say when there is nobody
 * @returns {string}
 */
const accountsText = (accounts, none) => (accounts.length === 0 ? none : accounts.join(', '))

/**
 * The warning a buyer needs: who can still mint (the service, other accounts, or an admin who can grant it), and how
 * far the supply may grow; null when nobody can mint and nobody can grant it (the supply can never grow).
 * @param {Powers} powers
 * @returns {string | null}
 */
function mintWarning(powers) {
  const service = powers.signerRoles.includes('MINT_ROLE')
  // The signer is among the minters when it holds the role (its grant is in the token's logs).
  const others = Math.max(0, powers.minters.length - (service ? 1 : 0))
  const growth =
    powers.supplyCap === null ? 'its supply may grow without limit' : `its supply may grow up to its cap of ${powers.supplyCap}`
  const paused = powers.paused.mint ? ' (minting is paused now)' : ''
  const accounts = others === 1 ? 'account' : 'accounts'
  if (service && others > 0) return `The service and ${others} other ${accounts} can still mint this token: ${growth}${paused}.`
  if (service) return `The service can still mint this token: ${growth}${paused}.`
  if (others > 0) return `${others} ${accounts} can still mint this token: ${growth}${paused}.`
  if (powers.admins.length > 0)
    return `Nobody can mint this token now, but its admin can grant the mint role: ${growth.replace('may grow', 'could grow')}.`
  return null
}

/**
 * The page's rows of a launch's powers now (the rows of the same name its launch facts wrote at birth give way to them).
 * @param {LaunchDetail} detail
 * @param {Powers} powers
 * @returns {[string, string, string][]}
 */
function powerRows(detail, powers) {
  /** @type {[string, string, string][]} */
  const rows = [
    ['minter', 'Who can mint', accountsText(powers.minters, 'nobody now')],
    ['pausers', 'Who can pause', accountsText(powers.pausers, 'nobody now')],
    ['metadataEditors', 'Who can edit metadata', accountsText(powers.metadataEditors, 'nobody now')],
    ['admin', 'Admin', accountsText(powers.admins, 'nobody: no role can be granted any more')],
    ['supplyCap', 'Supply cap', `${powers.supplyCap ?? 'none'} · ${powers.totalSupply} in supply now`],
    [
      'signerRoles',
      'The service still holds',
      powers.signerRoles.length === 0 ? 'no role: it can no longer touch this token' : powers.signerRoles.join(', '),
    ],
  ]
  const paused = Object.entries(powers.paused).flatMap(([feature, on]) => (on ? [feature] : []))
  if (paused.length > 0) rows.push(['paused', 'Paused now', paused.join(', ')])
  const fees = detail.pool?.feesOwed
  if (fees)
    rows.push([
      'feesOwed',
      'Fees earned, not collected',
      `${fees.eth} ETH and ${fees.token} ${detail.symbol} (the position owner’s to collect)`,
    ])
  return rows
}

/**
 * Loads the launch's powers now and shows them on its open page: the warning, and its rows (in place of the birth's
 * rows of the same name). An answer for a page since closed or reopened (tokenPage.js counts `powersRequest` up then)
 * is dropped; a failed one leaves the page as it is.
 * @param {string} address lower-case
 */
export async function showTokenPowers(address) {
  const request = state.tokenPage.powersRequest
  const warning = byId('detail-warning')
  try {
    const response = await getJson(`/api/launches/${address}`)
    if (!response.ok || request !== state.tokenPage.powersRequest) return
    const detail = /** @type {LaunchDetail} */ (await response.json())
    if (request !== state.tokenPage.powersRequest || !detail.powers) return
    const text = mintWarning(detail.powers)
    warning.textContent = text ?? ''
    warning.hidden = text === null
    const fields = byId('detail-fields')
    for (const row of fieldRows(null, null, powerRows(detail, detail.powers))) {
      const field = row.querySelector('dd')?.dataset.field
      const shown = field ? fields.querySelector(`dd[data-field="${field}"]`)?.parentElement : null
      if (shown) shown.replaceWith(row)
      else fields.append(row)
    }
  } catch {
    // The launch's facts from the feed stay: its powers are a refinement, not the page.
  }
}
