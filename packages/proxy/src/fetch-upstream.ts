import { boundUpstreamBody } from "./bound-upstream-body.ts"
import { contentCodings, decodersFor } from "./content-codings.ts"
import type { SendUpstream, UpstreamLimits } from "./proxy-context.ts"
import { failureBeforeHeaders } from "./upstream-failure.ts"

/**
 * The codings fetch decodes itself (the Fetch standard's and undici's: all of a list, or none of it).
 * zstd is left out: not every fetch decodes it, and a body it passed on still encoded would lose
 * its header here.
 */
const FETCH_DECODES: Readonly<Record<string, true>> = { gzip: true, "x-gzip": true, deflate: true, br: true }

/** `headers` without `content-encoding` when fetch decoded the body (see `content-codings.ts`). */
function decodedHeaders(headers: Headers): Headers {
  const codings = contentCodings(headers.get("content-encoding"))
  if (codings.length === 0 || decodersFor(codings, FETCH_DECODES) === undefined) return headers
  const out = new Headers(headers)
  out.delete("content-encoding")
  return out
}

/**
 * Upstream requests through a `fetch` (the web handler's, on any runtime): the wait for the
 * headers bounded by a timer that aborts the request, each read of the body by
 * {@link boundUpstreamBody}.
 */
export function fetchUpstream(fetch: typeof globalThis.fetch, limits: UpstreamLimits): SendUpstream {
  return async (target, request, signal) => {
    const upstream = new AbortController()
    const timeout = setTimeout(() => upstream.abort(), limits.timeoutMs)
    const init: RequestInit & { duplex?: "half" } = {
      method: request.method,
      headers: request.headers,
      body: request.body as NonNullable<RequestInit["body"]> | null,
      signal: AbortSignal.any([signal, upstream.signal]),
    }
    if (request.body instanceof ReadableStream) init.duplex = "half"
    let response: Response
    try {
      response = await fetch(target, init)
    } catch (error) {
      if (signal.aborted) throw error
      const failure = failureBeforeHeaders(error, upstream.signal.aborted ? "timeout" : "unreachable")
      limits.failed(failure.kind)
      throw failure
    } finally {
      clearTimeout(timeout)
    }
    const { status, statusText, body } = response
    return {
      status,
      statusText,
      headers: decodedHeaders(response.headers),
      body:
        body === null
          ? null
          : boundUpstreamBody(body, {
              idleMs: limits.idleMs,
              abort: (reason) => upstream.abort(reason),
              signal,
              failed: limits.failed,
            }),
    }
  }
}
