import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildLlmsTxt } from '../../lib/docs/llmsTxt.js'

// llms.txt is what an agent reads first: it names every event a stream sends and every field health answers anyone,
// as docs/api.md lists them.

const api = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8')

/** The text of docs/api.md's section `### <heading>…`, up to the next heading of the same level. */
const section = (heading: string) => api.split(/^### /m).find((part) => part.startsWith(heading)) ?? ''

describe('llms.txt', () => {
  const llms = buildLlmsTxt()

  it('names every event type GET /api/stream sends, as docs/api.md lists them', () => {
    const events = [...new Set([...section('`GET /api/stream`').matchAll(/`([a-z-]+)` event/g)].map((m) => m[1]!))]
    expect(events).toEqual(expect.arrayContaining(['control-room', 'launch', 'trade'])) // the scan sees the section
    expect(events.filter((event) => !llms.includes(`${event} event`))).toEqual([])
  })

  it('names every field GET /api/health answers anyone, as docs/api.md shows it', () => {
    const example = section('`GET /api/health`').match(/Anyone gets `(\{[^`]+\})`/)?.[1] ?? '{}'
    const fields = Object.keys(JSON.parse(example) as object)
    expect(fields).toContain('lastTickAgeSeconds') // the scan sees the answer
    expect(fields.filter((field) => !new RegExp(`\\b${field}\\b`).test(llms))).toEqual([])
  })
})
