import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, encodeFunctionData, erc20Abi, getAddress, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type AgentAction, answer, checkBody, defineAgentAction } from '../../lib/deploy/actions/action.js'
import { AGENT_ACTIONS, runAgentAction } from '../../lib/deploy/actions/registry.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { sendActionTransaction } from '../../lib/deploy/pipeline/sendTransaction.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { createLlmsTxtEndpoint, createOpenApiEndpoint, createSkillEndpoint } from '../../lib/docs/endpoint.js'
import { buildOpenApiDocument } from '../../lib/docs/openapiDocument.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { toolsOf } from '../../lib/mcp/tools.js'
import { silentLogger } from '../../lib/platform/log.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'

// One registry, every door: what POST /api/b20-skill dispatches, what MCP offers, what OpenAPI declares, and what
// llms.txt and the skill file list all come from the list of actions, so a new action is its module and a line in
// the registry. The fixture below is such a module, one that sends a transaction (a mint, on a token whose admin and
// minter is the service's signer); each door is handed the registry with the fixture's line added.

const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x and 40 hex digits')
const fixtureRequestSchema = z.strictObject({
  action: z.literal('mint_fixture'),
  token: address.describe('A token whose minter is the service’s signer'),
  to: address.describe('Who receives the tokens'),
  units: z
    .string()
    .regex(/^[1-9]\d{0,30}$/)
    .describe('Base units to mint'),
})

/** The token as the agent's history lists it, read from the chain. */
async function tokenOf(services: DeployServices, token: Address) {
  const read = (functionName: 'name' | 'symbol' | 'decimals') =>
    services.publicClient.readContract({ address: token, abi: erc20Abi, functionName })
  const [name, symbol, decimals] = await Promise.all([read('name'), read('symbol'), read('decimals')])
  return { address: token, name: String(name), symbol: String(symbol), variant: 'asset' as const, decimals: Number(decimals) }
}

/** A throwaway action that sends one call: one module's worth of declaration, as a new action would be written. */
const mintFixtureAction: AgentAction = defineAgentAction({
  name: 'mint_fixture',
  summary:
    'A fixture action that mints base units of a token the service’s signer administers, to show a new action that sends a transaction reaches every door.',
  schema: fixtureRequestSchema,
  answers: [
    z.object({
      ok: z.literal(true),
      status: z.literal('broadcast'),
      kind: z.string(),
      txHash: z.string(),
      explorerUrl: z.string(),
      mined: z.boolean(),
    }),
  ],
  check({ body }) {
    const checked = checkBody(fixtureRequestSchema, body, 'mint_fixture')
    if (!checked.ok) return checked
    const { token, to, units } = checked.data
    return {
      ok: true,
      run: async ({ services, agent }) => {
        const call = {
          to: getAddress(token),
          data: encodeFunctionData({ abi: mintAbi, functionName: 'mint', args: [getAddress(to), BigInt(units)] }),
        }
        const acted = await tokenOf(services, getAddress(token))
        return answer(await sendActionTransaction({ services, agent, kind: 'mint_fixture', call, token: acted, waitSeconds: 6 }))
      },
    }
  },
  tool: {
    name: 'mint_fixture_units',
    title: 'Mint (fixture)',
    description: 'Needs the agent key.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: fixtureRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'mint_fixture' }, idempotencyKey: null }),
    summarize: (body) => `Sent ${String(body.txHash)}.`,
  },
})

/** The registry with the fixture's line added: what a new action's commit does to lib/deploy/actions/registry.ts. */
const REGISTRY_WITH_FIXTURE = [...AGENT_ACTIONS, mintFixtureAction]

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
      '#/components/schemas/TokenStatusRequest',
      '#/components/schemas/CollectFeesRequest',
      '#/components/schemas/UpdateMetadataRequest',
      '#/components/schemas/MintRequest',
      '#/components/schemas/TransferAdminRequest',
      '#/components/schemas/RenounceRequest',
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
    const answer = await runAgentAction({ source: counted, agent, body: { action: 'burn' }, idempotencyKey: null })
    expect(answer).toMatchObject({ status: 200, body: { ok: false, code: 'UNKNOWN_ACTION' } })
    const reason = (answer.body.details as { reason: string }[])[0]!.reason
    for (const name of names) expect(reason).toContain(`"${name}"`)
    // An invalid request of a known action is refused before any service is built, too.
    const invalid = await runAgentAction({ source: counted, agent, body: { action: 'receipt' }, idempotencyKey: null })
    expect(invalid.body).toMatchObject({ code: 'INVALID_INTENT', details: [{ field: 'tx_hash' }] })
    expect(built).toBe(0)
  })
})

describe('a new action that sends a transaction, as one module and one registry line', () => {
  let stack: DeployStack
  let services: DeployServices
  let token: Address
  const holder = getAddress('0x000000000000000000000000000000000000f17e')
  const balance = () => stack.chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'memory' })
    services = stack.newInstance().services
    // A token with no admin given: the service's signer is its admin and minter.
    const deployed = await stack.post({ action: 'agent_deploy', name: 'Fixture Token', symbol: 'FIX', waitSeconds: 6 })
    expect(deployed.body).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    token = deployed.body.receipt.tokenAddress
  }, 90_000)
  afterAll(async () => {
    await stack?.close()
  })
  const source = () => deployServicesFrom(() => services)
  const post = (endpoint: { fetch: (request: Request) => Promise<Response> | Response }, body: unknown) =>
    endpoint.fetch(
      new Request('http://localhost/api/b20-skill', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': AGENT_KEYS.alice },
        body: JSON.stringify(body),
      }),
    )

  it('is served and sent on POST /api/b20-skill: one KMS signature, mined, in the agent’s history by its kind; refused without its line', async () => {
    const endpoint = createB20SkillEndpoint(source(), { actions: REGISTRY_WITH_FIXTURE })
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const response = await post(endpoint, { action: 'mint_fixture', token, to: holder, units: '1000' })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, any>
    expect(body).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint_fixture', mined: true })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs + 1)
    expect(await balance()).toBe(1000n)
    const receipt = await stack.chain.publicClient.getTransactionReceipt({ hash: body.txHash })
    expect(receipt).toMatchObject({ status: 'success', to: token.toLowerCase() })
    const listed = await stack.post({ action: 'list_deploys' })
    expect(listed.body.deploys).toContainEqual(
      expect.objectContaining({ txHash: body.txHash, kind: 'mint_fixture', predictedAddress: token, symbol: 'FIX' }),
    )
    // Its schema is checked like any action's: an unknown field is named, and nothing is signed.
    const invalid = await post(endpoint, { action: 'mint_fixture', token, to: holder, units: '1', x: 1 })
    expect(await invalid.json()).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'x' }] })
    const without = await post(createB20SkillEndpoint(source()), { action: 'mint_fixture', token, to: holder, units: '1' })
    expect(await without.json()).toMatchObject({ ok: false, code: 'UNKNOWN_ACTION' })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs + 1)
  })

  it('refuses a call the chain would revert with the decoded revert, signing nothing and listing nothing', async () => {
    // A token whose admin is someone else: the signer holds no mint role there.
    const other = await stack.post({ action: 'agent_deploy', name: 'Not Ours', symbol: 'NOT', admin: holder, waitSeconds: 6 })
    expect(other.body).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    const endpoint = createB20SkillEndpoint(source(), { actions: REGISTRY_WITH_FIXTURE })
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const minted = async () =>
      (await stack.post({ action: 'list_deploys' })).body.deploys.filter((entry: { kind: string }) => entry.kind === 'mint_fixture').length
    const mintsBefore = await minted()
    const response = await post(endpoint, { action: 'mint_fixture', token: other.body.receipt.tokenAddress, to: holder, units: '1' })
    expect(await response.json()).toMatchObject({
      ok: false,
      code: 'SIMULATION_REVERTED',
      revert: { name: 'AccessControlUnauthorizedAccount' },
    })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(await minted()).toBe(mintsBefore)
  })

  it('is an MCP tool, listed, named in the server’s instructions, and sent when called with the agent key', async () => {
    const endpoint = createMcpEndpoint({
      controlRoom: () => new Response('{}'),
      tokenSearch: () => new Response('{}'),
      tokenOhlcv: () => new Response('{}'),
      launches: () => new Response('{}'),
      deploy: source(),
      origins: () => ({ allowed: new Set(), allowLoopback: false }),
      actions: REGISTRY_WITH_FIXTURE,
    })
    const client = new Client({ name: 'registry-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/api/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${AGENT_KEYS.alice}` } },
      fetch: async (url, init) => endpoint.fetch(new Request(url, init)),
    })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === 'mint_fixture_units')
      expect(tool?.description).toBe(`${mintFixtureAction.summary} Needs the agent key.`)
      expect(tool?.inputSchema.properties).toHaveProperty('units')
      expect(client.getInstructions()).toContain('mint_fixture_units')
      const before = await balance()
      const result = (await client.callTool({ name: 'mint_fixture_units', arguments: { token, to: holder, units: '5' } })) as any
      expect(result.structuredContent).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint_fixture', mined: true })
      expect(result.content[0].text).toBe(`Sent ${result.structuredContent.txHash}.`)
      expect(await balance()).toBe(before + 5n)
    } finally {
      await client.close()
    }
  })

  it('is declared in the OpenAPI document: its request, its answer, its summary, and its tool on /api/mcp', async () => {
    const response = await createOpenApiEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/openapi'))
    const doc = (await response.json()) as Record<string, any>
    const operation = doc.paths['/api/b20-skill'].post
    expect(operation.requestBody.content['application/json'].schema.oneOf).toContainEqual({
      $ref: '#/components/schemas/MintFixtureRequest',
    })
    expect(doc.components.schemas.MintFixtureRequest.properties.units).toMatchObject({ type: 'string' })
    expect(operation.description).toContain(`mint_fixture: ${mintFixtureAction.summary}`)
    expect(JSON.stringify(operation.responses['200'])).toContain('"mined"')
    expect(doc.paths['/api/mcp'].post.summary).toContain('mint_fixture_units')
    const plain = (await (await createOpenApiEndpoint().fetch(get('/api/openapi'))).json()) as Record<string, any>
    expect(plain.components.schemas).not.toHaveProperty('MintFixtureRequest')
  })

  it('is listed in llms.txt and in the skill file, with its tool, and only there with its line', async () => {
    const llms = await (await createLlmsTxtEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/llms'))).text()
    expect(llms).toContain(`  - mint_fixture: ${mintFixtureAction.summary}`)
    expect(llms).toContain('mint_fixture_units')
    const skill = await (await createSkillEndpoint({ actions: REGISTRY_WITH_FIXTURE }).fetch(get('/api/skill'))).text()
    expect(skill).toContain(`| \`mint_fixture\` | \`mint_fixture_units\` | ${mintFixtureAction.summary} |`)
    const plainSkill = await (await createSkillEndpoint().fetch(get('/api/skill'))).text()
    expect(plainSkill).not.toContain('mint_fixture')
    for (const action of AGENT_ACTIONS) expect(plainSkill).toContain(`| \`${action.name}\` | \`${action.tool.name}\` |`)
    const plainLlms = await (await createLlmsTxtEndpoint().fetch(get('/api/llms'))).text()
    for (const action of AGENT_ACTIONS) expect(plainLlms).toContain(`  - ${action.name}: ${action.summary}`)
    for (const tool of toolsOf()) expect(plainLlms).toContain(tool.name)
  })
})
