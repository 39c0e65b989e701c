import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build, stop } from 'esbuild'

// A web page on an origin of its own (another port than the door's), so that a browser applies CORS to every request
// its script sends to the door. The script is browserPayer.ts bundled for the browser by esbuild, in memory.

/** The page's server: its address, and how to stop it. */
export type PaidDoorPage = { url: string; close: () => Promise<void> }

/** Bundles browserPayer.ts for the browser: one script, with @x402/fetch, @x402/evm and viem inside. */
export async function bundleBrowserPayer(): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./browserPayer.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  })
  // esbuild keeps its service process for the next build; none comes, so it is stopped here, where this worker reaps
  // it. Left to the worker's exit, it was still a zombie, waiting for init, when the run ended.
  await stop()
  return result.outputFiles[0]!.contents
}

/** Serves a page that loads the bundled payer (`/payer.js`) on 127.0.0.1 at a free port. */
export async function startPaidDoorPage(): Promise<PaidDoorPage> {
  const script = await bundleBrowserPayer()
  const server = createServer((request, response) => {
    if (request.url === '/payer.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
      return
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><title>Pay the door</title><script src="/payer.js"></script></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
