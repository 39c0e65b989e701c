/** Every shared-store key of the scheduled tick, in one place. `prefix` is `STORE_KEY_PREFIX`. */

/** Store keys of the tick under `prefix`. */
export const tickKeys = (prefix: string) => ({
  /** The last tick's summary, as health shows it. */
  last: `${prefix}tick:last`,
  /** The claim of one interval of the schedule (`interval` counts intervals since the epoch). */
  claim: (interval: number) => `${prefix}tick:claim:${interval}`,
})
