// `node --import ./dev/typeScriptImports.mjs file.ts`: how every npm script runs this repository's TypeScript, on
// Node's own type stripping (on by default since Node 22.18 and 23.6) instead of a loader such as tsx. Node runs a
// `.ts` file by erasing its types, which keeps every line and column, so no source map is needed; the code holds to
// that (`erasableSyntaxOnly` in tsconfig.json). What Node lacks is one rule of TypeScript's NodeNext resolution, which
// the code is written for: an import of `./x.js` from a TypeScript file means `./x.ts` when there is no `./x.js`.
// This adds that rule, as a synchronous hook in the importing thread (module.registerHooks, Node 22.15+): tsx's hooks
// run in a thread of their own: a server booted and called on five paths took 3.4 s of CPU through them, 2.1 s
// without (docs/testing.md).
//
// It also turns on Node's compile cache in .cache/ (module.enableCompileCache): V8's compiled code of every module, kept
// by its content, so a process that loads what an earlier one loaded skips compiling it. A server booted and called
// on five paths took about a fifth less CPU with it warm (docs/testing.md).
import { existsSync } from 'node:fs'
import { enableCompileCache, registerHooks } from 'node:module'

enableCompileCache(new URL('../.cache/node-compile-cache', import.meta.url).pathname)

/** A relative `.js` specifier written in a `.ts` or `.mts` file: the ones TypeScript maps to source. */
const mapsToSource = (specifier, parentURL) =>
  /^\.{1,2}\//.test(specifier) && /\.m?js$/.test(specifier) && /\.m?ts$/.test(parentURL ?? '') && parentURL.startsWith('file:')

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (mapsToSource(specifier, context.parentURL)) {
      const written = new URL(specifier, context.parentURL)
      if (!existsSync(written)) {
        const source = new URL(written.href.replace(/\.(m?)js$/, '.$1ts'))
        if (existsSync(source)) return nextResolve(source.href, context)
      }
    }
    return nextResolve(specifier, context)
  },
})
