import { chatCompletions } from "@tool-rescue/wire"
import { byteStream } from "./byte-stream.ts"
import { type ClientHeaders, keptResponseHeaders, upstreamRequestHeaders } from "./forward-headers.ts"
import type { ProxyContext, ResponseHead, StreamSink, UpstreamResponse } from "./proxy-context.ts"
import type { ByteReader } from "./read-sse.ts"
import { hasContentType, webHeaders } from "./response-headers.ts"
import { gatewayError } from "./upstream-failure.ts"
import { upstreamTarget } from "./upstream-url.ts"

/** A request without a body may not carry one upstream either. */
const BODYLESS: ReadonlySet<string> = new Set(["GET", "HEAD"])

/**
 * Forwards a request untouched: the same method, path, query, end-to-end headers and body bytes
 * (`body`, when the caller already read them, else the client's body streamed), and the
 * upstream's status, headers and body streamed back. Used for every path the proxy does not
 * recover and for recovered routes whose request gets no recovery (no tools, tool choice none).
 * An event stream goes to `sink` when the host gives one (see {@link relay}).
 */
export async function passThrough(
  request: Request,
  context: ProxyContext,
  body?: Uint8Array<ArrayBuffer>,
  headers: ClientHeaders = request.headers,
  sink?: StreamSink,
  target: string = upstreamTarget(context.upstream, context.routeTargets, request.url),
  ending?: Uint8Array,
): Promise<Response> {
  const sent = BODYLESS.has(request.method) ? null : (body ?? request.body)
  try {
    const response = await context.send(
      target,
      { method: request.method, headers: upstreamRequestHeaders(headers, context.credentials), body: sent },
      request.signal,
    )
    return relay(response, sink, ending)
  } catch (error) {
    return gatewayResponse(error)
  }
}

/**
 * The upstream's response as the client's: status and body unchanged, hop-by-hop headers dropped.
 * An event stream goes to `sink` when the host gives one (the Node entry writes it from the
 * upstream's reads to the connection: no web stream or `Response` per open stream); any other
 * body is a web `Response`'s.
 */
export function relay(response: UpstreamResponse, sink?: StreamSink, ending?: Uint8Array): Response {
  const head = {
    status: response.status,
    statusText: response.statusText,
    headers: keptResponseHeaders(response.headers),
  }
  if (response.body !== null && sink !== undefined && hasContentType(head.headers, "text/event-stream"))
    return sink(head, response.body.getReader(), ending)
  return webResponse(head, response.body === null ? null : response.body.getReader())
}

/**
 * A web `Response` of `head` whose body is pulled from `body`: its headers web `Headers` (made
 * here, on Node, from the upstream's list). The web handler's sink for a recovered stream too.
 */
export function webResponse(head: ResponseHead, body: ByteReader | null): Response {
  const init: ResponseInit = {
    status: head.status,
    headers: webHeaders(head.headers),
    ...(head.statusText === undefined ? {} : { statusText: head.statusText }),
  }
  return new Response(body === null ? null : byteStream(body), init)
}

/** 502 (unreachable) or 504 (timeout), OpenAI-shaped: the path's protocol is not known here. */
function gatewayResponse(error: unknown): Response {
  const { errors } = chatCompletions
  const { status, error: body } = gatewayError(error, errors.types.upstream) ?? {
    status: 502,
    error: {
      type: errors.types.upstream,
      code: "upstream-unreachable",
      message: "The upstream could not be reached.",
    },
  }
  return Response.json(errors.body(body), { status })
}
