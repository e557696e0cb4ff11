/**
 * What the proxy checks before it serves a request: the Host it was addressed to (against DNS
 * rebinding) and, when the proxy is shared, its API key.
 *
 * DNS rebinding: a web page on `evil.example` points its own name at 127.0.0.1 and then calls
 * the proxy from the user's browser as a same-origin request; the proxy would forward it with
 * the upstream's credentials. The page cannot change the Host header, which names `evil.example`:
 * so a request is served only for the Host names the proxy knows, as development servers do since
 * their advisories (Vite's `server.allowedHosts`, webpack-dev-server's `allowedHosts: "auto"`):
 * `localhost` and `*.localhost`, any IP address (a rebinding attack needs a name of its own),
 * the name the server was bound to, and the names the user adds.
 */
import type { ClientHeaders } from "./forward-headers.ts"
import type { ProxyEnv } from "./proxy-context.ts"

/**
 * The Host names a proxy serves besides `localhost`, `*.localhost` and IP addresses: exact names,
 * or `.example.com` for the domain and its subdomains; `true` serves any Host (behind a reverse
 * proxy that checks it).
 */
export type AllowedHosts = readonly string[] | true

/** Whether `hostname` (as a URL has it: lower case, an IPv6 address in brackets) may be served. */
export function isAllowedHost(hostname: string, allowed: AllowedHosts): boolean {
  if (allowed === true) return true
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname
  if (name === "localhost" || name.endsWith(".localhost") || isIpAddress(name)) return true
  for (const entry of allowed) {
    const wanted = entry.toLowerCase()
    if (wanted === name) return true
    if (wanted.startsWith(".") && (name === wanted.slice(1) || name.endsWith(wanted))) return true
  }
  return false
}

/** An IPv6 address in brackets, or a dotted IPv4 address (a URL's host parser normalised it). */
function isIpAddress(name: string): boolean {
  return name.startsWith("[") || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(name)
}

/**
 * Whether `address` (a bound address, or a name to bind) reaches this machine only: `localhost`,
 * 127.0.0.0/8, `::1`.
 */
export function isLoopback(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  return (
    bare === "localhost" ||
    bare === "::1" ||
    /^127(?:\.\d{1,3}){3}$/.test(bare) ||
    bare === "::ffff:127.0.0.1"
  )
}

/**
 * The host name and path of a request URL, which the runtime's URL parser made (the host in
 * lower case, an IPv6 address in brackets): sliced, not parsed again.
 */
function hostAndPath(url: string): { readonly hostname: string; readonly path: string } {
  const start = url.indexOf("//") + 2
  let end = url.indexOf("/", start)
  if (end === -1) end = url.length
  const authority = url.slice(start, end)
  const at = authority.lastIndexOf("@")
  const host = at === -1 ? authority : authority.slice(at + 1)
  const query = url.indexOf("?", end)
  const path = url.slice(end, query === -1 ? url.length : query)
  if (host.startsWith("[")) return { hostname: host.slice(0, host.indexOf("]") + 1), path }
  const colon = host.lastIndexOf(":")
  return { hostname: colon === -1 ? host : host.slice(0, colon), path }
}

/** One header of a client's request (lower-case `name`; the first, of raw headers), or null. */
export function clientHeader(headers: ClientHeaders, name: string): string | null {
  if (!Array.isArray(headers)) return (headers as Headers).get(name)
  for (let i = 0; i + 1 < headers.length; i += 2)
    if (headers[i]!.toLowerCase() === name) return headers[i + 1]!
  return null
}

/** Compares in time that depends on the lengths only, not on where the strings differ. */
function sameSecret(given: string, key: string): boolean {
  let differ = given.length ^ key.length
  for (let i = 0; i < key.length; i++) differ |= key.charCodeAt(i) ^ given.charCodeAt(i % (given.length || 1))
  return differ === 0
}

/** A credential header that carries the proxy's own key, by header: not forwarded upstream. */
export function carriesKey(name: string, value: string, key: string): boolean {
  if (name === "x-api-key") return sameSecret(value.trim(), key)
  if (name !== "authorization") return false
  const match = /^\s*bearer\s+(.*?)\s*$/i.exec(value)
  return match !== null && sameSecret(match[1]!, key)
}

/** Why a request is refused: the status and the error it gets, in its route's shape. */
export interface Refusal {
  readonly status: 401 | 403
  readonly kind: "authentication" | "permission"
  readonly code: string
  readonly message: string
}

/** The checks of one proxy, resolved once. */
export interface RequestGuard {
  /** Why `request` is refused, or undefined to serve it. */
  refuse(request: Request, env: ProxyEnv | undefined): Refusal | undefined
}

/**
 * The guard of a proxy: the Host allow-list (`allowed`), then the API key when there is one
 * (`/healthz` is served without it, for load balancers).
 */
export function createRequestGuard(allowed: AllowedHosts, apiKey: string | undefined): RequestGuard {
  return {
    refuse(request, env) {
      const { hostname, path } = hostAndPath(request.url)
      if (!isAllowedHost(hostname, allowed))
        return {
          status: 403,
          kind: "permission",
          code: "host_not_allowed",
          message: `The proxy does not serve the Host '${hostname}' (a guard against DNS rebinding): add it with --allowed-host (allowedHosts).`,
        }
      if (apiKey === undefined || path === "/healthz") return undefined
      // Node's `rawHeaders` when the host gives them: no web `Headers` made for the request.
      const headers = env?.rawHeaders ?? request.headers
      const authorization = clientHeader(headers, "authorization")
      const xApiKey = clientHeader(headers, "x-api-key")
      if (
        (authorization !== null && carriesKey("authorization", authorization, apiKey)) ||
        (xApiKey !== null && carriesKey("x-api-key", xApiKey, apiKey))
      )
        return undefined
      return {
        status: 401,
        kind: "authentication",
        code: "invalid_api_key",
        message:
          "The proxy needs its API key: send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'.",
      }
    },
  }
}
