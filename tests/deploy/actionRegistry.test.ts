import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type AgentAction, answer, checkBody, defineAgentAction } from '../../lib/deploy/actions/action.js'
import { AGENT_ACTIONS, runAgentAction } from '../../lib/deploy/actions/registry.js'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { createLlmsTxtEndpoint, createOpenApiEndpoint, createSkillEndpoint } from '../../lib/docs/endpoint.js'
import { buildOpenApiDocument } from '../../lib/docs/openapiDocument.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { toolsOf } from '../../lib/mcp/tools.js'
import { silentLogger } from '../../lib/platform/log.js'

// One registry, every door: what POST /api/b20-skill dispatches, what MCP offers, what OpenAPI declares, and what
// llms.txt and the skill file list all come from the list of actions, so a new action is its module and a line in
// the registry. The fixture below is such a module; each door is handed the registry with the fixture's line added.

const fixtureRequestSchema = z.strictObject({
  action: z.literal('echo_fixture'),
  word: z.string().min(1).max(20).describe('Any word; the fixture answers it back'),
})

/** A throwaway action: one module's worth of declaration, as a new action would be written. */
const echoFixtureAction: AgentAction = defineAgentAction({
  name: 'echo_fixture',
  summary: 'A fixture action that answers its word back, to show a new action reaches every door.',
  schema: fixtureRequestSchema,
  answers: [z.object({ ok: z.literal(true), echoed: z.string() })],
  check({ body }) {
    const checked = checkBody(fixtureRequestSchema, body, 'echo_fixture')
    if (!checked.ok) return checked
    return { ok: true, run: async () => answer({ ok: true, echoed: checked.data.word }) }
  },
  tool: {
    name: 'echo_fixture_word',
    title: 'Echo a word',
    description: 'Needs the agent key.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: fixtureRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'echo_fixture' }, idempotencyKey: null }),
    summarize: (body) => `Echoed ${String(body.echoed)}.`,
  },
})

/** The registry with the fixture's line added: what a new action's commit does to lib/deploy/actions/registry.ts. */
const REGISTRY_WITH_FIXTURE = [...AGENT_ACTIONS, echoFixtureAction]

const AGENT_KEY = 'test-agent-key-registry-0123456789'
const source = deployServicesFrom(() =>
  createDeployServices({ env: { DEPLOY_ALLOWLIST: digestAgentKey(AGENT_KEY) }, logger: silentLogger }),
)
const get = (path: string) => new Request(`http://localhost${path}`)

describe('the agent actions registry', () => {
  const names = AGENT_ACTIONS.map((action) => action.name)

  it('gives every action one MCP tool, described by the action’s own summary', () => {
    const tools = toolsOf()
    const agentTools = tools.filter((tool) => tool.action)
    expect(agentTools.map((tool) => tool.action?.name)).toEqual(names)
    for (const tool of agentTools) expect(tool.description.startsWith(tool.action!.summary)).toBe(true)
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length)
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
    const counted = deployServicesFrom(() => {
      built++
      return createDeployServices({ env: {}, logger: silentLogger })
    })
    const agent = { digest: 'a'.repeat(64), dailyCap: null }
    const answer = await runAgentAction({ source: counted, agent, body: { action: 'mint' }, idempotencyKey: null })
    expect(answer).toMatchObject({ status: 200, body: { ok: false, code: 'UNKNOWN_ACTION' } })
    const reason = (answer.body.details as { reason: string }[])[0]!.reason
    for (const name of names) expect(reason).toContain(`"${name}"`)
    // An invalid request of a known action is refused before any service is built, too.
    const invalid = await runAgentAction({ source: counted, agent, body: { action: 'receipt' }, idempotencyKey: null })
    expect(invalid.body).toMatchObject({ code: 'INVALID_INTENT', details: [{ field: 'tx_hash' }] })
    expect(built).toBe(0)
  })
})

describe('a new action, as one module and one registry line', () => {
  it('is served on POST /api/b20-skill, and refused there without its line', async () => {
    const post = (endpoint: { fetch: (request: Request) => Promise<Response> | Response }, body: unknown) =>
      endpoint.fetch(
        new Request('http://localhost/api/b20-skill', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': AGENT_KEY },
          body: JSON.stringify(body),
        }),
      )
    const served = await post(createB20SkillEndpoint(source, { actions: REGISTRY_WITH_FIXTURE }), { action: 'echo_fixture', word: 'hi' })
    expect(served.status).toBe(200)
    expect(await served.json()).toEqual({ ok: true, echoed: 'hi' })
    // Its schema is checked like any action's: an unknown field is named.
    const invalid = await post(createB20SkillEndpoint(source, { actions: REGISTRY_WITH_FIXTURE }), {
      action: 'echo_fixture',
      word: 'hi',
      x: 1,
    })
    expect(await invalid.json()).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'x' }] })
    const without = await post(createB20SkillEndpoint(source), { action: 'echo_fixture', word: 'hi' })
    expect(await without.json()).toMatchObject({ ok: false, code: 'UNKNOWN_ACTION' })
  })

  it('is an MCP tool, listed, named in the server’s instructions, and called with the agent key', async () => {
    const endpoint = createMcpEndpoint({
      controlRoom: () => new Response('{}'),
      tokenSearch: () => new Response('{}'),
      tokenOhlcv: () => new Response('{}'),
      launches: () => new Response('{}'),
      deploy: source,
      origins: () => ({ allowed: new Set(), allowLoopback: false }),
      actions: REGISTRY_WITH_FIXTURE,
    })
    const client = new Client({ name: 'registry-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/api/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } },
      fetch: async (url, init) => endpoint.fetch(new Request(url, init)),
    })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === 'echo_fixture_word')
      expect(tool?.description).toBe(`${echoFixtureAction.summary} Needs the agent key.`)
      expect(tool?.inputSchema.properties).toHaveProperty('word')
      expect(client.getInstructions()).toContain('echo_fixture_word')
      const result = await client.callTool({ name: 'echo_fixture_word', arguments: { word: 'hello' } })
      expect(result).toMatchObject({ structuredContent: { ok: true, echoed: 'hello' }, content: [{ type: 'text', text: 'Echoed hello.' }] })
    } finally {
      await client.close()
    }
  })

  it('is declared in the OpenAPI document: its request, its answer, its summary, and its tool on /api/mcp', async () => {
    const response = await createOpenApiEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/openapi'))
    const doc = (await response.json()) as Record<string, any>
    const operation = doc.paths['/api/b20-skill'].post
    expect(operation.requestBody.content['application/json'].schema.oneOf).toContainEqual({
      $ref: '#/components/schemas/EchoFixtureRequest',
    })
    expect(doc.components.schemas.EchoFixtureRequest.properties.word).toMatchObject({ type: 'string' })
    expect(operation.description).toContain(`echo_fixture: ${echoFixtureAction.summary}`)
    expect(JSON.stringify(operation.responses['200'])).toContain('"echoed"')
    expect(doc.paths['/api/mcp'].post.summary).toContain('echo_fixture_word')
    const plain = (await (await createOpenApiEndpoint().fetch(get('/api/openapi'))).json()) as Record<string, any>
    expect(plain.components.schemas).not.toHaveProperty('EchoFixtureRequest')
  })

  it('is listed in llms.txt and in the skill file, with its tool, and only there with its line', async () => {
    const llms = await (await createLlmsTxtEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/llms'))).text()
    expect(llms).toContain(`  - echo_fixture: ${echoFixtureAction.summary}`)
    expect(llms).toContain('echo_fixture_word')
    const skill = await (await createSkillEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/skill'))).text()
    expect(skill).toContain(`| \`echo_fixture\` | \`echo_fixture_word\` | ${echoFixtureAction.summary} |`)
    const plainSkill = await (await createSkillEndpoint().fetch(get('/api/skill'))).text()
    expect(plainSkill).not.toContain('echo_fixture')
    for (const action of AGENT_ACTIONS) expect(plainSkill).toContain(`| \`${action.name}\` | \`${action.tool.name}\` |`)
    const plainLlms = await (await createLlmsTxtEndpoint().fetch(get('/api/llms'))).text()
    for (const action of AGENT_ACTIONS) expect(plainLlms).toContain(`  - ${action.name}: ${action.summary}`)
    for (const tool of toolsOf()) expect(plainLlms).toContain(tool.name)
  })
})
