// The token page's dialog (a modal `<dialog>`, so the browser keeps the keyboard focus inside it while it is open):
// closed by its button, Escape, a click on the backdrop, or Back; the focus then goes back to what opened it.
import { focusTokenControl, tokenControlOf } from './focus.js'
import { byId, dialogById, state } from './state.js'

const DIALOG = 'detail'

/** Whether the dialog is open. */
export const dialogIsOpen = () => dialogById(DIALOG).open

/**
 * Opens the dialog (or keeps it open) with the focus on its Close button, remembering the control that opened it.
 * @param {HTMLElement | null} from the control the user chose, or null when a link opened it
 */
export function showDialog(from) {
  if (from) state.tokenPage.opener = { element: from, control: tokenControlOf(from) }
  const dialog = dialogById(DIALOG)
  if (!dialog.open) dialog.showModal()
  byId('detail-close').focus()
}

/** Closes the dialog (its `close` event then runs what {@link wireDialog} was given). */
export const closeDialog = () => dialogById(DIALOG).close()

/**
 * Wires the dialog's ways out. After it closed, `onClosed` runs, then the focus goes back to the same token's control:
 * the element that opened it, or its new one when the table or the trending list was redrawn while it was open.
 * @param {() => void} onClosed
 */
export function wireDialog(onClosed) {
  const dialog = dialogById(DIALOG)
  byId('detail-close').addEventListener('click', () => dialog.close())
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === event.currentTarget) dialog.close()
  })
  dialog.addEventListener('close', () => {
    onClosed()
    const { opener } = state.tokenPage
    if (opener?.element.isConnected) opener.element.focus()
    else focusTokenControl(opener?.control ?? null)
    state.tokenPage.opener = null
  })
}
