/** The folder for what the project fetches once per machine (dev/machineCache.mjs, plain JavaScript for any Node). */
export declare function machineCacheDir(projectRoot: string): string
