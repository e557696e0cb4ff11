/**
 * Header rules of the proxy (RFC 9110 §7.6.1). End-to-end headers — `Authorization`,
 * `x-api-key`, `anthropic-version`, `OpenAI-Organization`, … — go to the upstream unchanged;
 * hop-by-hop headers (and any header the `Connection` header names) stop at the proxy.
 */

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

/** fetch has decoded the body already, and the body we send may not be the upstream's. */
const RESPONSE_OWN: ReadonlySet<string> = new Set(["content-length", "content-encoding"])

const NONE: ReadonlySet<string> = new Set()

/** The header names a `Connection` header lists: hop-by-hop too. */
function connectionNamed(value: string | null | undefined): ReadonlySet<string> {
  if (value === null || value === undefined || value === "") return NONE
  return new Set(
    value
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token.length > 0),
  )
}

function copyWithout(headers: Headers, own: ReadonlySet<string>): Headers {
  const named = connectionNamed(headers.get("connection"))
  const out = new Headers()
  headers.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || own.has(name) || named.has(name)) return
    out.append(name, value)
  })
  return out
}

/**
 * A client request's headers: web `Headers`, or Node's `rawHeaders` (name, value, name, value,
 * …), which the Node entry passes: reading every header of `@hono/node-server`'s request makes
 * a `Headers` object that the request keeps for as long as its connection is open.
 */
export type ClientHeaders = Headers | readonly string[]

/** Leading and trailing HTTP whitespace (RFC 9110 §5.5), as `Headers` strips it. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g

/**
 * The headers sent upstream for a client's request, as a plain record (lower-case names, a
 * repeated header's values joined as `Headers` joins them, `cookie` with "; "; what both `fetch` and
 * undici take; made for each attempt, a retry's too). `accept-encoding: identity`: the upstream answers
 * uncompressed, so SSE is read as it is produced (a compressing server buffers) and no decoded
 * body travels behind a stale `content-encoding` (fetch would otherwise ask for gzip itself and
 * decode it).
 */
export function upstreamRequestHeaders(headers: ClientHeaders): Readonly<Record<string, string>> {
  // A Map while reading: the names are the client's (`__proto__` is a valid header name).
  const all = new Map<string, string>()
  const add = (value: string, name: string): void => {
    const key = name.toLowerCase()
    const trimmed = value.replace(EDGE_WHITESPACE, "")
    const before = all.get(key)
    all.set(key, before === undefined ? trimmed : `${before}${key === "cookie" ? "; " : ", "}${trimmed}`)
  }
  if (headers instanceof Headers) headers.forEach(add)
  else {
    // HTTP/2's pseudo-headers (`:path`, …) are the request line, not headers.
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (!headers[i]!.startsWith(":")) add(headers[i + 1]!, headers[i]!)
  }
  const named = connectionNamed(all.get("connection"))
  const out: Record<string, string> = Object.create(null)
  for (const [name, value] of all) {
    if (!HOP_BY_HOP.has(name) && !REQUEST_OWN.has(name) && !named.has(name)) out[name] = value
  }
  out["accept-encoding"] = "identity"
  return out
}

/** The headers sent to the client for an upstream response (its body possibly rewritten). */
export function clientResponseHeaders(headers: Headers): Headers {
  return copyWithout(headers, RESPONSE_OWN)
}
