// The token page in the URL, `#/token/0x…`: a trader can link to it, and Back closes it.

const TOKEN_ROUTE = /^#\/token\/(0x[0-9a-fA-F]{40})$/

/** Whether this page put the token in the URL (then closing the page goes Back, so Forward reopens it). */
let pushed = false

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
  pushed = true
}

/** Takes the token out of the URL as its page closes: Back when this page put it there, else the URL without it. */
export function leaveTokenRoute() {
  if (!routedToken()) return
  if (pushed) history.back()
  else history.replaceState(null, '', `${location.pathname}${location.search}`)
  pushed = false
}

/**
 * Calls `onToken` with the token the URL names (or null) each time it changes: Back, Forward, a link pasted or followed.
 * @param {(address: string | null) => void} onToken
 */
export function onRouteChange(onToken) {
  addEventListener('hashchange', () => {
    const address = routedToken()
    if (!address) pushed = false // Back took it out already
    onToken(address)
  })
}
