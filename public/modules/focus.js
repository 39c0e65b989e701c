// Keeping the keyboard focus on the same token when a redraw replaces the element that had it.

/** @typedef {{ address: string, inTrending: boolean }} TokenControl */

/**
 * Which token control an element is (a row's token button or a trending entry), or null. Ask while the element is
 * on the page: a detached element no longer knows which list it was in.
 * @param {Element | null} element
 * @returns {TokenControl | null}
 */
export function tokenControlOf(element) {
  const holder = element instanceof HTMLElement ? element.closest('#tokens [data-address], #trending [data-address]') : null
  const address = holder instanceof HTMLElement ? holder.dataset.address : undefined
  return holder && address ? { address, inTrending: !!holder.closest('#trending') } : null
}

/**
 * Focuses the control of that token in the same place (after a redraw replaced the element that had the focus).
 * @param {TokenControl | null} control
 */
export function focusTokenControl(control) {
  if (!control) return
  const again = document.querySelector(
    control.inTrending ? `#trending button[data-address="${control.address}"]` : `#tokens tr[data-address="${control.address}"] .token`,
  )
  if (again instanceof HTMLElement) again.focus({ preventScroll: true })
}

/**
 * Redraws, then puts the keyboard focus back on the same token's control if it was on a row or a trending entry
 * (a redraw replaces those elements; a keyboard user must not be sent back to the top every 30 s).
 * @param {() => void} redraw
 */
export function keepingFocus(redraw) {
  const active = document.activeElement
  const control = tokenControlOf(active)
  redraw()
  if (control && !active?.isConnected) focusTokenControl(control)
}
