import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { Environment } from './config.js'
import { ConfigError, loadPublicOrigin } from './config.js'
import { perInstance } from './perInstance.js'

/** Which browser origins may call an endpoint that must not be open to every page (the MCP endpoint). */
export type OriginPolicy = {
  /** Exact origins (`https://app.example.com`), lower case. */
  allowed: ReadonlySet<string>
  /** Whether loopback origins (`http://localhost:…`, `http://127.0.0.1:…`, `http://[::1]:…`) are allowed too. */
  allowLoopback: boolean
}

/** The verdict on a request's `Origin`: none (not a browser), allowed (CORS may name it), or refused. */
export type OriginVerdict = { kind: 'none' } | { kind: 'allowed'; origin: string } | { kind: 'refused'; origin: string }

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])

/** An origin as browsers send it (`scheme://host[:port]`, http or https, no path), normalised; null for anything else. */
export function parseOrigin(value: string): string | null {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return null
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password
  return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null
}

/**
 * Judges a request's `Origin` header. Only the header is read, never `Host`: a DNS-rebinding page controls the Host its
 * requests carry, but the browser writes its own origin.
 */
export function judgeOrigin(header: string | null, policy: OriginPolicy): OriginVerdict {
  if (header === null) return { kind: 'none' }
  const origin = parseOrigin(header)
  if (origin && policy.allowed.has(origin)) return { kind: 'allowed', origin }
  if (origin && policy.allowLoopback && LOOPBACK_HOSTS.has(new URL(origin).hostname)) return { kind: 'allowed', origin }
  return { kind: 'refused', origin: header.slice(0, 200) }
}

/**
 * The MCP endpoint's origins from the environment: the service's public origin (`PUBLIC_URL`), the deployment's own on Vercel (`VERCEL_PROJECT_PRODUCTION_URL`,
 * `VERCEL_URL`, `VERCEL_BRANCH_URL`, as https), loopback origins off Vercel (`npm start`), and `MCP_ALLOWED_ORIGINS`
 * (comma-separated origins). Throws a {@link ConfigError} naming a malformed entry.
 */
export function loadMcpOriginPolicy(env: Environment): OriginPolicy {
  const allowed = new Set<string>()
  const problems: string[] = []
  for (const entry of (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const origin = parseOrigin(entry)
    if (origin) allowed.add(origin)
    else problems.push(`MCP_ALLOWED_ORIGINS: "${entry.slice(0, 80)}" is not an origin (https://host[:port], no path)`)
  }
  if (problems.length > 0) throw new ConfigError(`Invalid mcp configuration: ${problems.join('; ')}`)
  const own = loadPublicOrigin(env)
  if (own) allowed.add(own)
  for (const name of ['VERCEL_PROJECT_PRODUCTION_URL', 'VERCEL_URL', 'VERCEL_BRANCH_URL']) {
    const host = env[name]?.trim()
    const origin = host ? parseOrigin(`https://${host}`) : null
    if (origin) allowed.add(origin)
  }
  return { allowed, allowLoopback: !env.VERCEL }
}

/** Parameters of {@link originGate}. */
export type OriginGateParameters = {
  /**
   * The policy, loaded at the first request; a {@link ConfigError} it throws is thrown on, to the endpoint's one mapping
   * of errors (500 `CONFIG_INVALID`).
   */
  policy: () => OriginPolicy
  allowMethods: string[]
  allowHeaders: string[]
  exposeHeaders: string[]
  /** The answer to a browser page from an origin the policy does not allow. */
  refused: (origin: string) => Response
}

/**
 * CORS for the origins a policy allows (that origin alone, never `*`, with `Vary: Origin`), as edge middleware; a page
 * from any other origin is refused before the handler runs or any header tells it more. Callers that send no `Origin`
 * (not a browser) pass, and get no CORS headers.
 */
export function originGate(parameters: OriginGateParameters): MiddlewareHandler {
  // Read once per instance, as the configuration it comes from.
  const policy = perInstance(parameters.policy)
  const allowed = cors({
    // Only origins judged allowed below reach this, named as the policy normalised them.
    origin: (origin) => (origin ? parseOrigin(origin) : null),
    allowMethods: parameters.allowMethods,
    allowHeaders: parameters.allowHeaders,
    exposeHeaders: parameters.exposeHeaders,
    maxAge: 86_400,
  })
  return async (c, next) => {
    const verdict = judgeOrigin(c.req.header('origin') ?? null, policy())
    if (verdict.kind === 'refused') return parameters.refused(verdict.origin)
    return allowed(c, next)
  }
}
