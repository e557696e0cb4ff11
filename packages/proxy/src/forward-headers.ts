/**
 * Header rules of the proxy (RFC 9110 §7.6.1). End-to-end headers — `Authorization`,
 * `x-api-key`, `anthropic-version`, `OpenAI-Organization`, … — go to the upstream unchanged,
 * except the one that presents the proxy's own API key; hop-by-hop headers (and any header the
 * `Connection` header names) stop at the proxy.
 */

import { carriesKey } from "./request-guard.ts"
import {
  FieldList,
  lowerCase,
  type ResponseHeaders,
  trimHttpWhitespace,
  webHeaders,
} from "./response-headers.ts"

const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
])

/**
 * Never forwarded: `host` names the proxy, not the upstream (fetch sets it from the URL);
 * `content-length` is recomputed by fetch from the body we send, which may differ from the
 * client's; `accept-encoding` is replaced by `identity` (see {@link upstreamRequestHeaders}).
 */
const REQUEST_OWN: ReadonlySet<string> = new Set(["host", "content-length", "accept-encoding", "expect"])

/**
 * The body we send may not be the upstream's. (`content-encoding` is the upstream client's: it
 * drops the header of a body it decoded and keeps it on one it passes on encoded.)
 */
const RESPONSE_OWN: ReadonlySet<string> = new Set(["content-length"])

const NONE: ReadonlySet<string> = new Set()

/**
 * The header names a `Connection` header lists: hop-by-hop too. A lone hop-by-hop name
 * (`keep-alive`, `upgrade`: the usual value) lists none that is not dropped already: no set.
 */
function connectionNamed(value: string | null | undefined): ReadonlySet<string> {
  if (value === null || value === undefined || value === "") return NONE
  if (!value.includes(",") && HOP_BY_HOP.has(lowerCase(value.trim()))) return NONE
  return new Set(
    value
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token.length > 0),
  )
}

/** The one rule: whether a header (lower-case `name`) stops at the proxy. */
function isDropped(name: string, own: ReadonlySet<string>, named: ReadonlySet<string>): boolean {
  return HOP_BY_HOP.has(name) || own.has(name) || named.has(name)
}

function copyWithout(headers: Headers, own: ReadonlySet<string>): Headers {
  const named = connectionNamed(headers.get("connection"))
  const out = new Headers()
  headers.forEach((value, name) => {
    if (!isDropped(name, own, named)) out.append(name, value)
  })
  return out
}

/** {@link copyWithout} for a {@link FieldList}: one list, allocated at the most it can hold. */
function fieldsWithout(list: FieldList, own: ReadonlySet<string>): FieldList {
  const named = connectionNamed(list.get("connection"))
  const { fields } = list
  const kept: string[] = new Array(fields.length)
  let length = 0
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]!
    if (isDropped(name, own, named)) continue
    kept[length++] = name
    kept[length++] = fields[i + 1]!
  }
  kept.length = length
  return new FieldList(kept)
}

/**
 * A client request's headers: web `Headers`, or Node's `rawHeaders` (name, value, name, value,
 * …), which the Node entry passes: reading every header of `@hono/node-server`'s request makes
 * a `Headers` object that the request keeps for as long as its connection is open.
 */
export type ClientHeaders = Headers | readonly string[]

/**
 * Adds a client's header (lower-case `name`) to `out` unless it stops at the proxy: a repeated
 * header's values joined as `Headers` joins them, `cookie`'s with "; ". Returns the `Connection`
 * header's value so far (joined with this one when it is that header), kept out of `out`: the
 * names it lists may come before it.
 */
function addRequestHeader(
  out: Record<string, string>,
  connection: string | undefined,
  name: string,
  value: string,
): string | undefined {
  if (name === "connection") return connection === undefined ? value : `${connection}, ${value}`
  if (isDropped(name, REQUEST_OWN, NONE)) return connection
  if (Object.hasOwn(out, name)) out[name] = `${out[name]!}${name === "cookie" ? "; " : ", "}${value}`
  // An own property, as undici's parser makes it: an assignment would set the prototype.
  else if (name === "__proto__")
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true })
  else out[name] = value
  return connection
}

/**
 * The proxy's own say in the credentials a request carries upstream (see {@link upstreamRequestHeaders}).
 */
export interface UpstreamCredentials {
  /** The proxy's API key: the client header that presents it is the proxy's, not forwarded. */
  readonly proxyKey?: string | undefined
  /** `Basic …` from the user info of the upstream URL: sent when the client sends no `Authorization`. */
  readonly authorization?: string | undefined
}

/** The credential headers a client may present the proxy's key in. */
const KEY_HEADERS = ["authorization", "x-api-key"] as const

/**
 * The headers sent upstream for a client's request, as a plain record (lower-case names, a
 * repeated header's values joined as `Headers` joins them, `cookie` with "; "; what both `fetch` and
 * undici take; made for each attempt, a retry's too). `accept-encoding: identity`: the upstream answers
 * uncompressed, so SSE is read as it is produced (a compressing server buffers) and no decoded
 * body travels behind a stale `content-encoding` (fetch would otherwise ask for gzip itself and
 * decode it). One pass into the record, then the names the `Connection` header lists are
 * deleted (seldom any: a `delete` makes the record a dictionary, a null-prototype one is one from
 * the start, several times the size); a name or value is copied only when it has a capital to
 * lower or whitespace to trim.
 */
export function upstreamRequestHeaders(
  headers: ClientHeaders,
  credentials?: UpstreamCredentials,
): Readonly<Record<string, string>> {
  // Names are the client's: `__proto__` and `constructor` are header names like any other.
  const out: Record<string, string> = {}
  let connection: string | undefined
  if (headers instanceof Headers) {
    // Lower-case names and trimmed values already; `forEach` would need a closure.
    for (const [name, value] of headers) connection = addRequestHeader(out, connection, name, value)
  } else {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = headers[i]!
      // HTTP/2's pseudo-headers (`:path`, …) are the request line, not headers.
      if (!name.startsWith(":"))
        connection = addRequestHeader(out, connection, lowerCase(name), trimHttpWhitespace(headers[i + 1]!))
    }
  }
  const named = connectionNamed(connection)
  // No iterator for the usual `keep-alive`, which names no header that is left.
  if (named.size > 0) for (const name of named) delete out[name]
  out["accept-encoding"] = "identity"
  if (credentials !== undefined) withCredentials(out, credentials)
  return out
}

/**
 * The proxy's key taken off (the client showed it to the proxy, not to the upstream; any other
 * credential header goes on as it came), then the upstream URL's `Basic` credentials where the
 * client sent no `Authorization` of its own.
 */
function withCredentials(
  out: Record<string, string>,
  { proxyKey, authorization }: UpstreamCredentials,
): void {
  if (proxyKey !== undefined)
    for (const name of KEY_HEADERS)
      if (Object.hasOwn(out, name) && carriesKey(name, out[name]!, proxyKey)) delete out[name]
  if (authorization !== undefined && !Object.hasOwn(out, "authorization")) out.authorization = authorization
}

/**
 * The headers sent to the client for an upstream response (its body possibly rewritten), in the
 * kind they came in: a {@link FieldList} stays one (what the Node entry's `writeHead` takes).
 */
export function keptResponseHeaders(headers: ResponseHeaders): ResponseHeaders {
  return headers instanceof FieldList
    ? fieldsWithout(headers, RESPONSE_OWN)
    : copyWithout(headers, RESPONSE_OWN)
}

/** {@link keptResponseHeaders} as web `Headers`, for a web `Response`. */
export function clientResponseHeaders(headers: ResponseHeaders): Headers {
  return webHeaders(keptResponseHeaders(headers))
}
