// Base control room dashboard: plain ES modules, no framework, no build step (index.html preloads every module, so
// they arrive in parallel with this one). Every upstream string is written with textContent, never as HTML, since
// token names and symbols are untrusted third-party text. Charts are hand-drawn SVG, but for the token page's candles
// (lightweight-charts, loaded only when a token page opens).
import { loadAll, onRoomDrawn, revealMain, startPolling } from './modules/data.js'
import { wireSearch } from './modules/search.js'
import { byId } from './modules/state.js'
import { onSort, watchTableInView } from './modules/table.js'
import { openRoutedToken, showRoomOnTokenPage, wireTokenPage } from './modules/tokenPage.js'

watchTableInView()
byId('tokens').querySelector('thead')?.addEventListener('click', onSort)
wireTokenPage()
wireSearch()
byId('refresh').addEventListener('click', () => void loadAll())
onRoomDrawn(showRoomOnTokenPage)
// Should the first room be slow past a few seconds, the skeletons show where they stand (its landing may then move them).
setTimeout(revealMain, 4000)
// A link to a token's page (`#/token/0x…`) opens it once the room is there to describe the token.
void startPolling().finally(openRoutedToken)
