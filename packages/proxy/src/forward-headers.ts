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

function copyWithout(headers: Headers, own: ReadonlySet<string>): Headers {
  const named = new Set(
    (headers.get("connection") ?? "")
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token.length > 0),
  )
  const out = new Headers()
  headers.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || own.has(name) || named.has(name)) return
    out.append(name, value)
  })
  return out
}

/**
 * The headers sent upstream for a client's request, as a plain record (lower-case names; what
 * both `fetch` and undici take, and small to keep for a retry). `accept-encoding: identity`: the
 * upstream answers uncompressed, so SSE is read as it is produced (a compressing server
 * buffers) and no decoded body travels behind a stale `content-encoding` (fetch would otherwise
 * ask for gzip itself and decode it).
 */
export function upstreamRequestHeaders(headers: Headers): Readonly<Record<string, string>> {
  const out: Record<string, string> = {}
  copyWithout(headers, REQUEST_OWN).forEach((value, name) => {
    out[name] = value
  })
  out["accept-encoding"] = "identity"
  return out
}

/** The headers sent to the client for an upstream response (its body possibly rewritten). */
export function clientResponseHeaders(headers: Headers): Headers {
  return copyWithout(headers, RESPONSE_OWN)
}
