import { type AnyWireProtocol, chatCompletions } from "@tool-rescue/wire"
import { byteStream } from "./byte-stream.ts"
import { type ClientHeaders, keptResponseHeaders, upstreamRequestHeaders } from "./forward-headers.ts"
import type { ProxyContext, ResponseHead, StreamSink, UpstreamResponse } from "./proxy-context.ts"
import {
  type ByteReader,
  type ByteSource,
  readSse,
  type SseEvent,
  type SseItems,
  type SseMapper,
} from "./read-sse.ts"
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
 * An event stream goes to `sink` when the host gives one (see {@link relay}); on a recovered
 * route (`wire` given) it ends at the protocol's end event.
 */
export async function passThrough(
  request: Request,
  context: ProxyContext,
  body?: Uint8Array<ArrayBuffer>,
  headers: ClientHeaders = request.headers,
  sink?: StreamSink,
  target: string = upstreamTarget(context.upstream, context.routeTargets, request.url),
  ending?: Uint8Array,
  wire?: AnyWireProtocol,
): Promise<Response> {
  const sent = BODYLESS.has(request.method) ? null : (body ?? request.body)
  try {
    const response = await context.send(
      target,
      { method: request.method, headers: upstreamRequestHeaders(headers, context.credentials), body: sent },
      request.signal,
    )
    return relay(response, sink, ending, wire)
  } catch (error) {
    return gatewayResponse(error)
  }
}

/**
 * The upstream's response as the client's: status and body unchanged, hop-by-hop headers dropped.
 * An event stream goes to `sink` when the host gives one (the Node entry writes it from the
 * upstream's reads to the connection: no web stream or `Response` per open stream); any other
 * body is a web `Response`'s. With `wire` (a recovered route's protocol), an event stream ends at
 * the protocol's end event, as a recovered one does, whether or not the upstream closes its
 * response then ({@link untilStreamEnd}).
 */
export function relay(
  response: UpstreamResponse,
  sink?: StreamSink,
  ending?: Uint8Array,
  wire?: AnyWireProtocol,
): Response {
  const head = {
    status: response.status,
    statusText: response.statusText,
    headers: keptResponseHeaders(response.headers),
  }
  if (response.body === null) return webResponse(head, null)
  const events = hasContentType(head.headers, "text/event-stream")
  const body = events && wire !== undefined ? untilStreamEnd(response.body, wire) : response.body.getReader()
  return sink !== undefined && events ? sink(head, body, ending) : webResponse(head, body)
}

/**
 * The network chunks of an event stream as they came, ending with the one that carries the
 * protocol's end event (`[DONE]`, `response.completed`, `message_stop`, …): what follows it is
 * read and dropped, and an upstream that keeps its response open after it is cut shortly after
 * (see `readSse`), instead of holding the client's response until the idle timeout.
 */
function untilStreamEnd(body: ByteSource, wire: AnyWireProtocol): ByteReader {
  return new StreamEndWatch(body, wire)
}

/** {@link untilStreamEnd}'s reader: one object, its steps prototype methods (see `readSse`). */
class StreamEndWatch implements ByteReader, SseMapper<Uint8Array> {
  private readonly wire: AnyWireProtocol
  private readonly chunks: SseItems<Uint8Array>
  private last = false

  constructor(body: ByteSource, wire: AnyWireProtocol) {
    this.wire = wire
    this.chunks = readSse(body, this)
  }

  received(bytes: Uint8Array | undefined, _whole: boolean, out: Uint8Array[]): void {
    if (bytes !== undefined) out.push(bytes)
  }

  toItems(event: SseEvent): void {
    if (!this.last) this.last = endsStream(this.wire, event)
  }

  over(): boolean {
    return this.last
  }

  async read(): Promise<{ done: true } | { done: false; value: Uint8Array }> {
    const next = await this.chunks.next()
    return next.done === true ? DONE : { done: false, value: next.value }
  }

  async cancel(): Promise<void> {
    await this.chunks.return?.()
  }
}

const DONE = { done: true } as const

/**
 * Whether `event` is the last of its stream: Chat Completions' `[DONE]`; else the protocol's end
 * event, by its `event:` name when it has one (Responses and Anthropic name events by their
 * type: no JSON parsed per event), by its data's type when not.
 */
function endsStream(wire: AnyWireProtocol, event: SseEvent): boolean {
  if (wire.sentinel) return event.data === "[DONE]"
  if (event.event !== undefined && event.event !== "message") return wire.isStreamEnd({ type: event.event })
  try {
    return wire.isStreamEnd(JSON.parse(event.data))
  } catch {
    return false
  }
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
