/** A Base token the service has seen: its last known 24h volume (USD) and when it was last seen (epoch ms). */
export type UniverseEntry = { address: string; volume24h: number; lastSeen: number }

/** What one refresh learned of a token: its volume, and whether that came from an answer about the token itself. */
export type Sighting = { volume24h: number; authoritative: boolean }

/** Most tokens the universe keeps (the highest volumes). */
export const UNIVERSE_MAX = 1000
/** Entries unseen for this long are dropped. */
export const UNIVERSE_MAX_AGE_MS = 24 * 60 * 60 * 1000

/** The universe's addresses by last 24h volume, highest first (ties by address, so the order is stable). */
export function universeLeaders(universe: readonly UniverseEntry[], count: number): string[] {
  return [...universe]
    .sort((a, b) => b.volume24h - a.volume24h || (a.address < b.address ? -1 : 1))
    .slice(0, count)
    .map((e) => e.address)
}

/**
 * Merges one refresh's sightings into the universe (pure): a sighting replaces the token's volume and marks it seen
 * now; entries unseen for a day are dropped; the {@link UNIVERSE_MAX} highest volumes are kept.
 */
export function mergeSightings(universe: readonly UniverseEntry[], sightings: ReadonlyMap<string, Sighting>, now: number): UniverseEntry[] {
  const merged = new Map<string, UniverseEntry>()
  for (const entry of universe) if (now - entry.lastSeen < UNIVERSE_MAX_AGE_MS) merged.set(entry.address, entry)
  for (const [address, sighting] of sightings) merged.set(address, { address, volume24h: sighting.volume24h, lastSeen: now })
  return [...merged.values()].sort((a, b) => b.volume24h - a.volume24h || (a.address < b.address ? -1 : 1)).slice(0, UNIVERSE_MAX)
}

/** Reads a stored universe; anything malformed reads as empty, entry by entry. */
export function parseUniverse(text: string | null): UniverseEntry[] {
  if (!text) return []
  let rows: unknown
  try {
    rows = JSON.parse(text)
  } catch {
    return []
  }
  if (!Array.isArray(rows)) return []
  const entries: UniverseEntry[] = []
  for (const row of rows) {
    if (!Array.isArray(row)) continue
    const [address, volume24h, lastSeen] = row as unknown[]
    if (
      typeof address === 'string' &&
      /^0x[0-9a-f]{40}$/.test(address) &&
      typeof volume24h === 'number' &&
      Number.isFinite(volume24h) &&
      typeof lastSeen === 'number'
    ) {
      entries.push({ address, volume24h, lastSeen })
    }
  }
  return entries
}

/** The compact stored form: `[[address, volume24h, lastSeen], ...]` (about 70 bytes an entry). */
export function serializeUniverse(universe: readonly UniverseEntry[]): string {
  return JSON.stringify(universe.map((e) => [e.address, e.volume24h, e.lastSeen]))
}
