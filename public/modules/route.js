// The token page in the URL, `#/token/0x…`: a trader can link to it, Back closes it and Forward opens it again.
import { state } from './state.js'

const TOKEN_ROUTE = /^#\/token\/(0x[0-9a-fA-F]{40})$/

/**
 * The token the URL names, lower-case, or null.
 * @returns {string | null}
 */
export function routedToken() {
  const match = TOKEN_ROUTE.exec(location.hash)
  return match?.[1] ? match[1].toLowerCase() : null
}

/**
 * Puts a token's page in the URL (an entry of its own in the history).
 * @param {string} address
 */
export function routeToToken(address) {
  if (routedToken() === address) return
  location.hash = `#/token/${address}`
  state.tokenPage.pushed = true
}

/** Takes the token out of the URL as its page closes: Back when this page put it there, else the URL without it. */
export function leaveTokenRoute() {
  if (!routedToken()) return
  if (state.tokenPage.pushed) history.back()
  else history.replaceState(null, '', `${location.pathname}${location.search}`)
  state.tokenPage.pushed = false
}

/**
 * Calls `onToken` with the token the URL names (or null) each time it changes: Back, Forward, a link pasted or followed.
 * @param {(address: string | null) => void} onToken
 */
export function onRouteChange(onToken) {
  addEventListener('hashchange', () => {
    const address = routedToken()
    if (!address) state.tokenPage.pushed = false // Back took it out already
    onToken(address)
  })
}
