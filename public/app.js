// Base control room dashboard: plain ES modules, no framework, no build step (index.html preloads every module, so
// they arrive in parallel with this one). Every upstream string is written with textContent, never as HTML, since
// token names and symbols are untrusted third-party text. Charts are hand-drawn SVG.
import { loadAll, startPolling } from './modules/data.js'
import { wireDetailPanel } from './modules/panel.js'
import { wireSearch } from './modules/search.js'
import { byId } from './modules/state.js'
import { onSort, watchTableInView } from './modules/table.js'

watchTableInView()
byId('tokens').querySelector('thead')?.addEventListener('click', onSort)
wireDetailPanel()
wireSearch()
byId('refresh').addEventListener('click', () => void loadAll())
startPolling()
