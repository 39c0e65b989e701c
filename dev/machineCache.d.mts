/** The folder for what the project fetches once per machine (dev/machineCache.mjs, plain JavaScript for any Node). */
export declare function machineCacheDir(projectRoot: string): string
/** The folder an install into `prefix` writes before it is renamed to `prefix`; it names this process. */
export declare function partialInstallDir(prefix: string): string
/** Removes from `dir` the partial installs of processes that are gone, untouched for an hour; answers the names removed. */
export declare function removeAbandonedInstalls(dir: string, now?: number): string[]
