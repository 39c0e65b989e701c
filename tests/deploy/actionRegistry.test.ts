import { describe, expect, it } from 'vitest'
import { AGENT_ACTIONS, runAgentAction } from '../../lib/deploy/actions/registry.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { buildOpenApiDocument } from '../../lib/docs/openapiDocument.js'
import { TOOLS } from '../../lib/mcp/tools.js'
import { silentLogger } from '../../lib/platform/log.js'

// One registry, every door: what POST /api/b20-skill dispatches, what MCP offers and what OpenAPI declares all come
// from AGENT_ACTIONS, so a new action is its module and a line in the registry.

describe('the agent actions registry', () => {
  const names = AGENT_ACTIONS.map((action) => action.name)

  it('gives every action one MCP tool, described by the action’s own summary', () => {
    const agentTools = TOOLS.filter((tool) => tool.action)
    expect(agentTools.map((tool) => tool.action?.name)).toEqual(names)
    for (const tool of agentTools) expect(tool.description.startsWith(tool.action!.summary)).toBe(true)
    expect(new Set(TOOLS.map((tool) => tool.name)).size).toBe(TOOLS.length)
  })

  it('declares every action’s request in the OpenAPI document, named after it, and says what each one does', () => {
    const doc = buildOpenApiDocument() as Record<string, any>
    const operation = doc.paths['/api/b20-skill'].post
    const requests = operation.requestBody.content['application/json'].schema.oneOf as { $ref: string }[]
    expect(requests.map((ref) => ref.$ref)).toEqual([
      '#/components/schemas/AgentDeployRequest',
      '#/components/schemas/ReceiptRequest',
      '#/components/schemas/ListDeploysRequest',
      '#/components/schemas/ListEventsRequest',
      '#/components/schemas/RedeliverRequest',
    ])
    for (const action of AGENT_ACTIONS) expect(operation.description).toContain(`${action.name}: ${action.summary}`)
  })

  it('names every action when one is unknown, and loads no service to say so', async () => {
    let built = 0
    const source = deployServicesFrom(() => {
      built++
      return createDeployServices({ env: {}, logger: silentLogger })
    })
    const answer = await runAgentAction({
      source,
      agent: { digest: 'a'.repeat(64), dailyCap: null },
      body: { action: 'mint' },
      idempotencyKey: null,
    })
    expect(answer).toMatchObject({ status: 200, body: { ok: false, code: 'UNKNOWN_ACTION' } })
    const reason = (answer.body.details as { reason: string }[])[0]!.reason
    for (const name of names) expect(reason).toContain(`"${name}"`)
    // An invalid request of a known action is refused before any service is built, too.
    expect(
      (
        await runAgentAction({
          source,
          agent: { digest: 'a'.repeat(64), dailyCap: null },
          body: { action: 'receipt' },
          idempotencyKey: null,
        })
      ).body,
    ).toMatchObject({
      code: 'INVALID_INTENT',
      details: [{ field: 'tx_hash' }],
    })
    expect(built).toBe(0)
  })
})
