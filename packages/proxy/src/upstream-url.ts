/**
 * Where a client's request goes: always under the configured upstream, never a host from the
 * request (no open relay). Clients use the proxy as they would the upstream: with
 * `--upstream http://127.0.0.1:11434/v1`, a client's `http://127.0.0.1:PORT/v1` base URL maps
 * `/v1/chat/completions` to `http://127.0.0.1:11434/v1/chat/completions`. An upstream without a
 * `/v1` suffix (`http://host:8000` or `http://host/api`) receives the client's path appended to
 * its own.
 *
 * @example
 * ```ts
 * upstreamUrl(new URL("http://127.0.0.1:11434/v1"), "/v1/models", "") // http://127.0.0.1:11434/v1/models
 * upstreamUrl(new URL("http://127.0.0.1:11434/v1"), "/", "")          // http://127.0.0.1:11434/
 * ```
 */
export function upstreamUrl(upstream: URL, path: string, search: string): URL {
  const base = upstream.pathname.replace(/\/+$/, "")
  const target = new URL(upstream.origin)
  if (base.endsWith("/v1") && (path === "/v1" || path.startsWith("/v1/"))) {
    target.pathname = base + path.slice("/v1".length)
  } else if (base.endsWith("/v1")) {
    target.pathname = base.slice(0, -"/v1".length) + path
  } else {
    target.pathname = base + path
  }
  target.search = search
  return target
}

/**
 * The upstream URL (`href`) for a request's URL: {@link upstreamUrl} of its path and query. A path
 * of `known` (path → its target) with no query — what clients send to the recovered routes — is
 * looked up, not parsed.
 *
 * @example
 * ```ts
 * const upstream = new URL("http://127.0.0.1:11434/v1")
 * const known = new Map([["/v1/chat/completions", upstreamUrl(upstream, "/v1/chat/completions", "").href]])
 * upstreamTarget(upstream, known, "http://127.0.0.1:8787/v1/chat/completions") // http://127.0.0.1:11434/v1/chat/completions
 * upstreamTarget(upstream, known, "http://127.0.0.1:8787/v1/models?limit=1")   // http://127.0.0.1:11434/v1/models?limit=1
 * ```
 */
export function upstreamTarget(
  upstream: URL,
  known: ReadonlyMap<string, string>,
  requestUrl: string,
): string {
  // A runtime's request URL is absolute and serialized: its path starts at the first "/" after "//".
  const target = known.get(requestUrl.slice(requestUrl.indexOf("/", requestUrl.indexOf("//") + 2)))
  if (target !== undefined) return target
  const url = new URL(requestUrl)
  return upstreamUrl(upstream, url.pathname, url.search).href
}

/**
 * `path` as the recovered routes are named: runs of slashes made one, trailing slashes dropped.
 * Clients and their configuration spell a base URL every way (`…/v1/`, `…//v1`), and a recovered
 * route reached under another spelling must be recovered all the same.
 *
 * @example
 * ```ts
 * routePath("/v1//chat/completions/") // "/v1/chat/completions"
 * ```
 */
export function routePath(path: string): string {
  const single = path.replace(/\/{2,}/g, "/")
  return single.length > 1 && single.endsWith("/") ? single.slice(0, -1) : single
}
