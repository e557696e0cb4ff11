/**
 * A recovered route: one client request is one turn of `runTurn`. The first attempt is the
 * client's own bytes; a retry is the protocol's retry body (the original request without the
 * malformed response, with the instruction), spliced into the same client stream or result.
 */
import {
  type AttemptContext,
  type FailedResponse,
  isToolCallRecoveryError,
  type NormalizedPart,
  type OutputPart,
  type RecoveryEvent,
  runTurn,
  type TurnInput,
} from "@tool-rescue/recovery"
import { planTurn, type RecoverPlan, type TurnRequest } from "@tool-rescue/recovery/adapter"
import {
  isRecord,
  type JsonKind,
  jsonKind,
  recoveryErrorStatus,
  type SplicerSettings,
} from "@tool-rescue/wire"
import { upstreamText } from "./bound-upstream-body.ts"
import { type EndedTurn, turnKey, turnShape } from "./ended-turns.ts"
import {
  type ClientHeaders,
  clientResponseHeaders,
  keptResponseHeaders,
  upstreamRequestHeaders,
} from "./forward-headers.ts"
import { passThrough, relay, webResponse } from "./pass-through.ts"
import type { Protocol, ProtocolError } from "./protocol.ts"
import {
  isOk,
  type OnClientGone,
  type ProxyContext,
  type ProxyEnv,
  type StreamSink,
  type UpstreamResponse,
} from "./proxy-context.ts"
import { readBody } from "./read-body.ts"
import {
  type ByteReader,
  readSse,
  type SseEvent,
  type SseItems,
  type SseMapper,
  sseFrame,
} from "./read-sse.ts"
import { hasContentType } from "./response-headers.ts"
import { TurnLog } from "./turn-log.ts"
import { gatewayError, UpstreamFailure } from "./upstream-failure.ts"
import { upstreamTarget } from "./upstream-url.ts"

type Body = Readonly<Record<string, unknown>>

/** A protocol's splice of a recovered stream (what `wire.createSplicer` makes). */
type Splicer = ReturnType<Protocol["wire"]["createSplicer"]>

/** The client's leaving as `signal` (the request's) reports it. */
function signalGone(signal: AbortSignal): OnClientGone {
  return (listener) => {
    if (signal.aborted) listener(signal.reason)
    else signal.addEventListener("abort", () => listener(signal.reason), { once: true })
  }
}

/** The web handler's sink: a `Response` whose body is pulled from `body`. */
const webSink: StreamSink = webResponse

/** Everything one turn needs. */
interface Call {
  readonly protocol: Protocol
  readonly context: ProxyContext
  readonly target: string
  /**
   * The client's headers as the host gave them (held by its request anyway): the upstream's are
   * made from them for each attempt, not kept for the turn's life (a few hundred bytes a stream).
   */
  readonly clientHeaders: ClientHeaders
  /**
   * The request body as it goes upstream (the client's bytes, or its JSON without the proxy's
   * marks): kept as bytes (parsed again for a retry), not as parsed JSON. A retry is this body
   * with the instruction, so it chains from the same `previous_response_id` as the first attempt.
   */
  readonly bytes: Uint8Array<ArrayBuffer>
  /** The upstream stores the response (Responses `store: true`): it keeps the retry's id. */
  readonly stored: boolean
  /**
   * The turn's plan: its tools, the recoveries the agent's turn made in earlier requests (read
   * from the history's marks), the options with the metrics' listener (see {@link observed}).
   */
  readonly plan: RecoverPlan
  /** Aborted when the client goes away (or stops reading the stream). */
  readonly controller: AbortController
  readonly sink: StreamSink
  /** The turn's log line, when the proxy has a logger. */
  readonly log: TurnLog | undefined
  /**
   * The turn's key in `context.endedTurns`, once computed: before the request went upstream
   * (its shape was remembered) or when its first retry started.
   */
  key: string | undefined
  /** The turn's shape (`turnShape`): remembered with its key should the turn end. */
  readonly shape: string
}

const encoder = new TextEncoder()
/** Request bodies are UTF-8 JSON: one that is not is refused (400), so a retry decodes it safely. */
const decoder = new TextDecoder("utf-8", { fatal: true })

/** The protocol's error as an HTTP response. */
function errorResponse(protocol: Protocol, status: number, error: ProtocolError): Response {
  return Response.json(protocol.wire.errors.body(error), { status })
}

/** The SSE frame that ends a stream of `protocol` with `error`. */
function errorFrame(protocol: Protocol, error: ProtocolError): string {
  const event = protocol.wire.errors.event(error)
  return sseFrame(JSON.stringify(event.data), event.name)
}

/**
 * The deepest nesting of arrays and objects a request body may have. Recovery, the retry body
 * and its serialization walk a request recursively: a body nested thousands of levels deep (a
 * few kilobytes of brackets) would overflow the stack there. No tool schema or message history
 * comes near this.
 */
const MAX_JSON_DEPTH = 512

/**
 * Whether `value` (parsed JSON) nests arrays and objects at most `limit` deep. A walk with its
 * own stack (the parse itself does not recurse in V8): only containers are visited, so a
 * history of long strings costs a step per message part, not per byte.
 */
function withinDepth(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const item = stack.pop()
    const depth = depths.pop()!
    if (typeof item !== "object" || item === null) continue
    if (depth > limit) return false
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === "object" && child !== null) {
        stack.push(child)
        depths.push(depth + 1)
      }
  }
  return true
}

/** Each protocol's {@link shutdownEvent}, made once. */
const shutdownEvents = new Map<Protocol, Uint8Array>()

/**
 * The protocol's error event that ends a stream the host cuts because it is shutting down (its
 * grace period over): the same bytes for every stream of the protocol.
 */
function shutdownEvent(protocol: Protocol): Uint8Array {
  let event = shutdownEvents.get(protocol)
  if (event === undefined) {
    event = encoder.encode(
      errorFrame(protocol, {
        type: protocol.wire.errors.types.server,
        code: "proxy-shutdown",
        message: "The proxy shut down before the response was complete.",
      }),
    )
    shutdownEvents.set(protocol, event)
  }
  return event
}

type Parsed =
  | { readonly kind: "body"; readonly body: Body }
  | { readonly kind: "invalid"; readonly error: ProtocolError }

/**
 * A request body that is not a JSON object, or a field the proxy reads of a kind the protocol does
 * not allow (`"stream": "yes"`, `"tools": {}`): the protocol's 400.
 */
function parseRequest(protocol: Protocol, bytes: Uint8Array): Parsed {
  const invalid = (code: string, message: string): Parsed => ({
    kind: "invalid",
    error: { type: protocol.wire.errors.types["invalid-request"], code, message },
  })
  let parsed: unknown
  try {
    parsed = JSON.parse(decoder.decode(bytes))
  } catch {
    return invalid("invalid_json", "The request body is not valid JSON.")
  }
  if (!isRecord(parsed)) return invalid("invalid_json", "The request body must be a JSON object.")
  if (!withinDepth(parsed, MAX_JSON_DEPTH))
    return invalid(
      "json_too_deep",
      `The request body nests arrays and objects over ${MAX_JSON_DEPTH} levels deep.`,
    )
  for (const [name, kinds] of Object.entries(protocol.wire.fields)) {
    const kind = jsonKind(parsed[name])
    if (kind !== undefined && !kinds.includes(kind))
      return invalid(
        "invalid_type",
        `'${name}' must be ${kinds.map((k) => `${article(k)} ${k}`).join(" or ")}.`,
      )
  }
  return { kind: "body", body: parsed }
}

const article = (kind: JsonKind): string => (kind === "array" || kind === "object" ? "an" : "a")

/**
 * Handles one request to a recovered route (`protocol`).
 *
 * - Body over `maxBodyBytes` → 413; not a JSON object, nested over 512 levels deep, or a
 *   non-boolean `stream` → 400, in the protocol's error shape. Nothing is sent upstream.
 * - No recovery planned (no tools, tool choice none, …) → the client's bytes go upstream as they
 *   came and the response comes back untouched.
 * - Every request goes upstream without the proxy's marks on its tool-call ids (the client's
 *   bytes as they came when it carries none).
 * - An upstream error status (or an unexpected content type) on the first attempt → passed
 *   through unchanged.
 *
 * A recovered stream goes to `host.sink` (a web `Response`'s body unless the host writes it
 * itself); the client's headers are read from `host.rawHeaders` and its leaving heard through
 * `host.onClientGone` when the host gives them (else from the request).
 */
export async function recoverRequest(
  protocol: Protocol,
  request: Request,
  context: ProxyContext,
  host: ProxyEnv = {},
  target: string = upstreamTarget(context.upstream, context.routeTargets, request.url),
): Promise<Response> {
  const clientHeaders = host.rawHeaders ?? request.headers
  const arrived = performance.now()
  let received: Awaited<ReturnType<typeof readBody>>
  try {
    received = await readBody(request, context.maxBodyBytes, clientHeaders)
  } catch {
    // The client's body failed (its connection closed, or the Node entry cut its silence): the
    // answer is likely never read, and this is no failure of the proxy to log.
    return errorResponse(protocol, 400, {
      type: protocol.wire.errors.types["invalid-request"],
      code: "request_body_failed",
      message: "The request body could not be read.",
    })
  }
  if (received === "too-large") {
    return errorResponse(protocol, 413, {
      type: protocol.wire.errors.types["too-large"],
      code: "request_too_large",
      message: `The request body is larger than the proxy's limit of ${context.maxBodyBytes} bytes.`,
    })
  }
  const parsed = parseRequest(protocol, received)
  if (parsed.kind === "invalid") return errorResponse(protocol, 400, parsed.error)
  // The budget is read from the client's history (its marks), the upstream gets the history
  // without them: a stateful upstream knows only the ids it issued.
  const turnRequest = protocol.turnRequest(parsed.body)
  let plan = planTurn(context.resolved, turnRequest)
  const body = protocol.unmarked(parsed.body)
  const bytes = body === parsed.body ? received : encoder.encode(JSON.stringify(body))
  if (plan.kind === "skip") {
    context.metrics.request(protocol.name, "passthrough", turnRequest.model)
    return passThrough(
      request,
      context,
      bytes,
      clientHeaders,
      host.sink,
      target,
      shutdownEvent(protocol),
      protocol.wire,
    )
  }
  context.metrics.request(protocol.name, "recovered", plan.model)
  // A resend of a turn this proxy ended lately: the same error, or the budget it already spent.
  // Only a request shaped like a remembered turn computes its key (a SHA-256 of its
  // conversation, off the thread) before it goes upstream: every other request goes at once.
  let key: string | undefined
  const shape = turnShape(protocol, body)
  if (!context.endedTurns.empty && context.endedTurns.mayHold(shape)) {
    key = await turnKey(protocol, body, credentials(clientHeaders))
    const ended = context.endedTurns.recall(key)
    if (ended?.error !== undefined) {
      context.logger?.warn(
        { outcome: "resent", model: plan.model ?? null, protocol: protocol.name, route: protocol.route },
        "a client resent a turn the proxy had ended: answered with the same error, not sent upstream",
      )
      return errorResponse(protocol, ended.error.status, ended.error.error)
    }
    if (ended !== undefined) plan = replanned(context, turnRequest, ended)
  }

  const controller = new AbortController()
  const log =
    context.logger === undefined
      ? undefined
      : new TurnLog(context.logger, protocol, plan.model, plan.tools, arrived)
  ;(host.onClientGone ?? signalGone(request.signal))((reason) => {
    log?.clientGone()
    controller.abort(reason)
  })
  const call: Call = {
    protocol,
    context,
    target,
    clientHeaders,
    bytes,
    stored: protocol.wire.stored(body),
    plan: observed(plan, context, protocol, log),
    controller,
    sink: host.sink ?? webSink,
    log,
    key,
    shape,
  }

  const sent = context.send(
    call.target,
    { method: "POST", headers: upstreamRequestHeaders(clientHeaders, context.credentials), body: bytes },
    controller.signal,
  )
  // Observed once the request is on its way: the histogram's work is not on the request's path.
  context.metrics.added(protocol.name, "request", (performance.now() - arrived) / 1000)
  let first: UpstreamResponse
  try {
    first = await sent
  } catch (error) {
    return failureResponse(call, error)
  }
  const streaming = body.stream === true
  // A body still encoded (a coding the upstream client does not decode) cannot be read: passed on.
  if (
    !isOk(first) ||
    !hasContentType(first.headers, streaming ? "text/event-stream" : "json") ||
    first.headers.get("content-encoding") !== null
  ) {
    if (!isOk(first)) log?.upstreamError(undefined, first.status)
    return relay(first, host.sink, shutdownEvent(protocol), protocol.wire)
  }
  return streaming ? recoverStream(call, first) : recoverJson(call, first)
}

/** The client's credentials as they go upstream: a turn's key holds them (see `turnKey`). */
function credentials(clientHeaders: ClientHeaders): string {
  const headers = upstreamRequestHeaders(clientHeaders)
  return `${headers.authorization ?? ""}\n${headers["x-api-key"] ?? ""}`
}

/** The plan of a resend of `ended`: the retries it made are spent already. */
function replanned(context: ProxyContext, request: TurnRequest, ended: EndedTurn): RecoverPlan {
  const plan = planTurn(context.resolved, {
    ...request,
    recoveriesBefore: (request.recoveriesBefore ?? 0) + ended.spent,
  })
  if (plan.kind === "skip") throw new Error("tool-rescue proxy: a recovered request's plan changed kind")
  return plan
}

/** The turn's key (see `turnKey`), computed once per request. */
async function keyOf(call: Call): Promise<string> {
  call.key ??= await turnKey(
    call.protocol,
    JSON.parse(decoder.decode(call.bytes)) as Body,
    credentials(call.clientHeaders),
  )
  return call.key
}

/**
 * Counts a retry against the turn before it is sent: a resend that arrives while it runs (a
 * client that reconnected) finds it spent, not a fresh budget. The retry is rare, so computing
 * the key first costs the common path nothing.
 */
async function spendRetry(call: Call): Promise<void> {
  call.context.endedTurns.remember(await keyOf(call), { spent: 1, error: undefined }, call.shape)
}

/**
 * Settles the turn in the memory once it ended, before the client hears of it (so its resend
 * finds it). A turn recovery gave up on is answered again with its error; one that failed
 * otherwise (the upstream, the client leaving) keeps the retries it spent (counted as each
 * started); one that ended with an answer is forgotten, so asking again is a new turn.
 */
async function settleTurn(call: Call, error?: unknown): Promise<void> {
  const { endedTurns } = call.context
  if (error === undefined) {
    if (call.key !== undefined) endedTurns.forget(call.key)
    return
  }
  const gaveUp = givenUp(call, error)
  if (gaveUp !== undefined) endedTurns.remember(await keyOf(call), { spent: 0, error: gaveUp }, call.shape)
}

/** The proxy's error for a turn recovery gave up on (not one the client left). */
function givenUp(call: Call, error: unknown): { status: number; error: ProtocolError } | undefined {
  if (!isToolCallRecoveryError(error) || error.code === "aborted" || call.controller.signal.aborted)
    return undefined
  return proxyError(call, error)
}

/**
 * The turn's plan with the metrics' listener in front of the user's, in the options `createProxy`
 * resolved once (nothing is checked again).
 */
function observed(
  plan: RecoverPlan,
  context: ProxyContext,
  protocol: Protocol,
  log: TurnLog | undefined,
): RecoverPlan {
  const { metrics, logger } = context
  // The metrics' listener is made on the turn's first event: most turns have none.
  let observe: ReturnType<typeof metrics.turn> | undefined
  const user = plan.options.onEvent
  const onEvent = (event: RecoveryEvent): void => {
    observe ??= metrics.turn(protocol.name, plan.model)
    observe(event)
    log?.event(event)
    user?.(event)
  }
  // The proxy's hook takes the route besides the library's fields (see `ProxyOptions`); a
  // failure is counted and said (the turn's own line says what it cost), then rethrown.
  const persist = context.persistFailed
  const persistFailed =
    persist === undefined
      ? undefined
      : async (failed: FailedResponse) => {
          try {
            await persist({ ...failed, protocol: protocol.name, route: protocol.route })
          } catch (error) {
            metrics.persistFailure(protocol.name)
            logger?.error(
              {
                protocol: protocol.name,
                route: protocol.route,
                outcome: failed.outcome,
                error: errorText(error),
              },
              "persistFailed (the failed log) could not store a malformed response",
            )
            throw error
          }
        }
  return { ...plan, options: { ...plan.options, onEvent, persistFailed } }
}

/** Sends the retry of `round`: the retry body, streamed or not like the original. */
async function sendRetry(
  call: Call,
  instruction: string | undefined,
  signal: AbortSignal,
  contentType: string,
) {
  await spendRetry(call)
  const body = JSON.parse(decoder.decode(call.bytes)) as Body
  const retry = call.protocol.wire.retryBody(body, instruction ?? "", call.plan.placement)
  const headers = {
    ...upstreamRequestHeaders(call.clientHeaders, call.context.credentials),
    "content-type": "application/json",
  }
  const response = await call.context.send(
    call.target,
    { method: "POST", headers, body: encoder.encode(JSON.stringify(retry)) },
    signal,
  )
  // Provider errors are final: the retry's error status is passed on, never retried.
  if (!isOk(response) || !hasContentType(response.headers, contentType))
    throw UpstreamFailure.fromResponse(response, await upstreamText(response.body).catch(() => ""))
  return response
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T, void, undefined> {
  yield* items
}

/**
 * The SSE event each upstream event arrived as, for an event the splice passes on whole but not
 * in the network chunk it came in (see `RecoveredStream.wire`): written from its data, not
 * serialized again. One table for every stream: an entry lives as long as its event.
 */
const arrivedAs = new WeakMap<object, SseEvent>()

function recoverStream(call: Call, first: UpstreamResponse): Response {
  const stream = new RecoveredStream(call, first)
  return call.sink(
    { status: first.status, headers: keptResponseHeaders(first.headers) },
    stream,
    shutdownEvent(call.protocol),
  )
}

/**
 * A recovered stream: the client's body (its reads), the turn's input (`attempt`) and the SSE
 * reader's mapper (`toItems`) in one object, its steps prototype methods. Every open stream holds
 * one, idle or not: a closure per step, with the context they shared, cost more than the object.
 */
class RecoveredStream implements ByteReader, SseMapper<NormalizedPart<unknown>>, TurnInput<unknown> {
  private readonly call: Call
  readonly signal: AbortSignal
  // Every protocol ends a complete stream with its finish (`finish_reason`, the Responses
  // lifecycle end, `message_delta`'s stop reason): a stream that closes before it was cut short.
  readonly finishRequired = true
  // Both upstream requests take the turn's signal (the first `call.controller`'s, a retry the
  // attempt's): their reads reject at once on abort, so no race per part.
  readonly settlesOnAbort = true
  // What an abandoned attempt released stays on the client's screen: the retry continues after it.
  readonly streaming = true
  /** The upstream sent the protocol's `[DONE]` sentinel. */
  private sentinel = false
  /** The attempt's stream sent its last event (its end event, or the sentinel). */
  private last = false
  private round = 0
  /** The attempt being read: whether its next part is already in memory. */
  private source: SseItems<NormalizedPart<unknown>> | undefined
  /** The first attempt's response, until its attempt starts (not kept for the turn's life). */
  private pending: UpstreamResponse | undefined
  private readonly turn: AsyncGenerator<OutputPart<unknown>, void, undefined>
  private readonly splicer: Splicer
  /** Set once the turn is over: the client's stream is done, or cut with `error`. */
  private end: { readonly error?: unknown } | undefined
  /**
   * The last network chunk while its bytes are its events' whole wire text, and those events
   * (with the SSE events they came as) in order: a read whose items are exactly these writes
   * the bytes as they came (see {@link wire}).
   */
  private raw: Uint8Array | undefined
  private readonly rawEvents: object[] = []
  private readonly rawSse: SseEvent[] = []
  /** The items of the read being made. */
  private readonly items: unknown[] = []

  constructor(call: Call, first: UpstreamResponse) {
    this.call = call
    this.signal = call.controller.signal
    this.pending = first
    this.turn = runTurn<unknown>(call.plan, this)
    this.splicer = call.protocol.wire.createSplicer(splicerSettings(call))
  }

  async attempt(
    attempt: number,
    { instruction, signal }: AttemptContext,
  ): Promise<AsyncIterable<NormalizedPart<unknown>>> {
    if (attempt > 0) return this.parts(await sendRetry(this.call, instruction, signal, "text/event-stream"))
    const response = this.pending
    this.pending = undefined
    return response === undefined ? fromArray<NormalizedPart<unknown>>([]) : this.parts(response)
  }

  private parts(response: UpstreamResponse): AsyncIterable<NormalizedPart<unknown>> {
    this.sentinel = false
    this.last = false
    this.source = response.body === null ? undefined : readSse(response.body, this)
    return this.source ?? fromArray<NormalizedPart<unknown>>([])
  }

  received(bytes: Uint8Array | undefined, whole: boolean): void {
    // Events of the chunk before that no read wrote yet (held back by the turn): by the table.
    this.spill()
    this.raw = whole ? bytes : undefined
  }

  /** The chunk's events go to the table ({@link arrivedAs}); its bytes are not written as they came. */
  private spill(): void {
    const { rawEvents, rawSse } = this
    for (let i = 0; i < rawEvents.length; i++) arrivedAs.set(rawEvents[i]!, rawSse[i]!)
    this.forgetChunk()
  }

  /** Lets go of the last chunk: its bytes and its events. */
  private forgetChunk(): void {
    this.rawEvents.length = 0
    this.rawSse.length = 0
    this.raw = undefined
  }

  toItems(sse: SseEvent, out: NormalizedPart<unknown>[]): void {
    if (sse.data === "[DONE]") {
      // Written once, when the turn ends (a retry's stream has its own).
      this.sentinel = true
      this.last = true
      this.raw = undefined
      return
    }
    let event: unknown
    try {
      event = JSON.parse(sse.data)
    } catch (error) {
      // A provider error, never retried: the client's stream ends with the protocol's error event.
      this.call.context.metrics.upstreamFailure("malformed")
      throw new UpstreamFailure("malformed", { reason: "an event that is not JSON", cause: error })
    }
    const { wire } = this.call.protocol
    if (wire.isStreamError(event, sse.event))
      throw new UpstreamFailure("event", { frame: sseFrame(sse.data, sse.event) })
    if (wire.isStreamEnd(event)) this.last = true
    if (typeof event === "object" && event !== null) {
      this.rawEvents.push(event)
      this.rawSse.push(sse)
    } else this.raw = undefined
    for (const part of wire.streamParts(event)) out.push(part)
  }

  over(): boolean {
    return this.last
  }

  private frameOf(item: unknown): string {
    const sse = typeof item === "object" && item !== null ? arrivedAs.get(item) : undefined
    return sse === undefined
      ? sseFrame(JSON.stringify(item), this.call.protocol.wire.eventName(item))
      : sseFrame(sse.data, sse.event)
  }

  /**
   * The bytes of a read: its items, then `tail` (the sentinel, or the frame that ends the
   * stream). Items that are exactly the last network chunk's events, in order and untouched, are
   * that chunk's bytes as they came (the clean path: no frame made, nothing encoded); any other
   * read is written frame by frame. Undefined for none.
   */
  private wire(tail: string): Uint8Array | undefined {
    const { items, rawEvents, raw } = this
    let exact = raw !== undefined && tail === "" && items.length === rawEvents.length
    for (let i = 0; exact && i < items.length; i++) exact = items[i] === rawEvents[i]
    if (exact) {
      items.length = 0
      this.forgetChunk()
      return raw
    }
    this.spill()
    let text = ""
    for (const item of items) text += this.frameOf(item)
    items.length = 0
    text += tail
    return text.length > 0 ? encoder.encode(text) : undefined
  }

  /**
   * The client's next chunk: every frame the parts already read produce (one network chunk of
   * the upstream is one write to the client, not one per event). An error the protocol has no
   * frame for (a cut upstream stream) cuts the client's stream too, after the frames before it.
   * One async frame per stream waits here (no layer between it and the turn).
   */
  async read(): Promise<IteratorResult<Uint8Array, undefined>> {
    const { call, turn, splicer } = this
    if (this.end !== undefined) {
      if ("error" in this.end) throw this.end.error
      return { done: true, value: undefined }
    }
    const { items } = this
    let tail = ""
    try {
      for (;;) {
        const step = await turn.next()
        if (step.done === true) {
          if (call.protocol.wire.sentinel && this.sentinel) tail = "data: [DONE]\n\n"
          await settleTurn(call)
          this.end = {}
          break
        }
        const part = step.value
        if (part.type === "attempt-start") this.round = part.round
        for (const item of splicer.push(part as OutputPart<unknown>))
          items.push(recovered(call, item, this.round))
        if (items.length > 0 && this.source?.buffered() !== true) break
      }
    } catch (error) {
      await settleTurn(call, error).catch(() => undefined)
      const gaveUp = givenUp(call, error)
      const final = gaveUp === undefined ? undefined : splicer.fail?.(gaveUp.error)
      const frame = call.controller.signal.aborted ? "" : final === undefined ? failureFrame(call, error) : ""
      if (final !== undefined) for (const item of final) items.push(item)
      if (frame === undefined) this.end = { error }
      else {
        tail = frame
        this.end = {}
      }
    }
    const value = this.wire(tail)
    return value === undefined ? this.read() : { done: false, value }
  }

  async cancel(reason?: unknown): Promise<void> {
    // The client went away: abort the upstream request; no retry starts after this.
    this.call.controller.abort(reason)
    await this.turn.return(undefined)
  }
}

async function recoverJson(call: Call, first: UpstreamResponse): Promise<Response> {
  const api = call.protocol.wire
  let text: string
  try {
    text = await upstreamText(first.body)
  } catch (error) {
    // The body stalled (`upstreamIdleTimeoutMs`) or was cut: a provider error, not retried.
    return failureResponse(call, error)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return new Response(text, { status: first.status, headers: clientResponseHeaders(first.headers) })
  }
  let round = 0
  const turn = runTurn<unknown>(call.plan, {
    signal: call.controller.signal,
    attempt: async (attempt, { instruction, signal }) => {
      if (attempt === 0) return fromArray(api.dataParts(data))
      round = attempt
      const response = await sendRetry(call, instruction, signal, "json")
      const next = await upstreamText(response.body)
      try {
        return fromArray(api.dataParts(JSON.parse(next)))
      } catch {
        throw new UpstreamFailure("status", {
          response: { status: response.status, headers: response.headers, text: next },
        })
      }
    },
  })
  try {
    const result = recovered(call, await api.result(turn, splicerSettings(call)), round)
    await settleTurn(call)
    const headers = clientResponseHeaders(first.headers)
    return new Response(JSON.stringify(result), { status: first.status, headers })
  } catch (error) {
    await settleTurn(call, error).catch(() => undefined)
    return failureResponse(call, error)
  }
}

function splicerSettings(call: Call): SplicerSettings {
  return { tools: call.plan.tools, returnToolCallErrors: false, stored: call.stored }
}

/**
 * An item of a retry (round ≥ 1) as the client gets it: its tool-call ids carry the turn's
 * recoveries so far, the mark later requests of the agent's turn bring back (see
 * `Protocol.turnRequest`). (Usage is summed over the attempts by each protocol's splice.)
 */
function recovered(call: Call, item: unknown, round: number): unknown {
  return round === 0 ? item : call.protocol.markCalls(item, call.plan.recoveriesBefore + round)
}

/** The proxy's own error for `error`, or undefined for an error it does not know (a cut stream). */
function proxyError(call: Call, error: unknown): { status: number; error: ProtocolError } | undefined {
  const { types } = call.protocol.wire.errors
  if (isToolCallRecoveryError(error)) {
    return {
      // 422 for a repeated leak: clients do not retry it.
      status: recoveryErrorStatus[error.code],
      error: { type: types["tool-call-recovery"], code: error.code, message: error.message },
    }
  }
  return gatewayError(error, types.upstream)
}

/** An error's message (a failed-log write's says which file and why), never its stack. */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function failureResponse(call: Call, error: unknown): Response {
  if (!call.controller.signal.aborted) call.log?.upstreamError(error)
  if (UpstreamFailure.isInstance(error) && error.response !== undefined) {
    const { status, headers, text } = error.response
    return new Response(text, { status, headers: clientResponseHeaders(headers) })
  }
  const own = proxyError(call, error)
  if (own !== undefined) return errorResponse(call.protocol, own.status, own.error)
  // The client left while we waited (the response is never read), or a bug: a plain 500.
  return errorResponse(call.protocol, 500, {
    type: call.protocol.wire.errors.types.server,
    code: "proxy-error",
    message: "The proxy could not complete the request.",
  })
}

/**
 * One line on stderr for an upstream answer the proxy could not read (the client gets the
 * protocol's error): no stack, since it is the upstream's fault, not the proxy's.
 */
/** The frame that ends a recovered stream for `error`, or undefined to cut the stream. */
function failureFrame(call: Call, error: unknown): string | undefined {
  const { protocol } = call
  call.log?.upstreamError(error)
  if (UpstreamFailure.isInstance(error)) {
    // A cut upstream stream cuts the client's (the Node entry ends it quietly).
    if (error.kind === "cut") return undefined
    const passed = error.upstreamFrame(protocol.wire.errors.eventName)
    if (passed !== undefined) return passed
    if (error.kind === "status") {
      const status = error.response?.status ?? 502
      return errorFrame(protocol, {
        type: protocol.wire.errors.types.upstream,
        code: `upstream-${status}`,
        message: `The upstream answered the retry with HTTP ${status}.`,
      })
    }
  }
  const own = proxyError(call, error)
  return own === undefined ? undefined : errorFrame(protocol, own.error)
}
