/**
 * The replacement `create` of `chat.completions` and `responses`.
 *
 * It calls the SDK's own `create` once, exactly as the caller would (the request goes out
 * eagerly), and returns `first._thenUnwrap(transform)`: a genuine SDK `APIPromise`, so `await`,
 * `.withResponse()`, `.asResponse()` and the helpers built on `_thenUnwrap` (`parse()`) keep
 * working. The original promise is never `.then()`-ed, so its body is never read twice.
 *
 * - Streaming: the transform runs when the first response's headers arrive and returns a new
 *   stream of the same class, built from the live instance's constructor (never from our own
 *   `openai` import: the ESM and CJS copies are different classes), with its own
 *   `AbortController`. Aborting the first attempt internally must not look like a user abort to
 *   the SDK's helpers, which check `stream.controller.signal.aborted` after iterating.
 * - Non-streaming: the transform awaits the retry when one is needed.
 */
import { type AttemptContext, type NormalizedPart, type OutputPart, runTurn } from "@tool-rescue/recovery"
import {
  turnKey as contentKey,
  planTurn,
  type RecalledTurn,
  type RecoverPlan,
  type ResolvedRecoveryOptions,
  recallTurn,
  type TurnMemory,
  type TurnRequest,
} from "@tool-rescue/recovery/adapter"
import type { JsonObject, SplicerSettings, WireProtocol } from "@tool-rescue/wire"
import { isThenable, retryRequestOptions, signalOf } from "./retry-request.ts"
import { type RecoveredCalls, type TurnKey, turnKey } from "./turn-mark.ts"

type Body = JsonObject

/**
 * A wire protocol of `@tool-rescue/wire` (chat completions or Responses) with this adapter's turn
 * mark: the recoveries of a call id are read from the wrapper's registry, within the request's
 * turn (a hash of the message that started it).
 */
interface ApiAdapter<StreamItem, StreamRaw, Data, DataRaw>
  extends Omit<WireProtocol<StreamItem, StreamRaw, Data, DataRaw>, "request"> {
  /** What the request tells recovery's `planTurn` (tools, tool choice, the turn's recoveries so far). */
  request(body: Body, calls: RecoveredCalls): TurnRequest
  /** The turn the request belongs to (its last user message), for the marks of its recovered calls. */
  turn(body: Body): TurnKey
}

function withTurnMark<StreamItem, StreamRaw, Data, DataRaw>(
  wire: WireProtocol<StreamItem, StreamRaw, Data, DataRaw>,
): ApiAdapter<StreamItem, StreamRaw, Data, DataRaw> {
  const turn = (body: Body): TurnKey => turnKey(wire.turnStart(body))
  return {
    ...wire,
    turn,
    request(body, calls) {
      const key = turn(body)
      return wire.request(body, (id) => calls.recoveries(id, key))
    },
  }
}

/** The wrapper's settings, resolved once per wrapped client. */
export interface CreateSettings {
  readonly resolved: ResolvedRecoveryOptions
  readonly returnToolCallErrors: boolean
  /** The turn marks: call ids of recovered responses (shared by the clients `withOptions` derives). */
  readonly calls: RecoveredCalls
  /**
   * The turns that ended without an answer, by their conversation and tools (shared as `calls`):
   * a caller that runs a failed request again (its own retry loop; the SDK's `maxRetries` retries
   * only statuses, never our error) gets the error it ended with, with no request, or the budget
   * it spent.
   */
  readonly memory: TurnMemory
}

/** The SDK's `Stream`, as far as we use it. */
interface SdkStream<Item> extends AsyncIterable<Item> {
  readonly controller: AbortController
}

type StreamConstructor<Item> = new (
  iterator: () => AsyncIterator<Item>,
  controller: AbortController,
  client?: unknown,
) => SdkStream<Item>

/** The SDK's `APIPromise`, as far as we use it. */
interface SdkPromise<T> extends PromiseLike<T> {
  _thenUnwrap<U>(
    transform: (data: T, props: { readonly options?: { readonly stream?: unknown } }) => U,
  ): SdkPromise<U>
}

function isSdkPromise(value: unknown): value is SdkPromise<unknown> {
  return isThenable(value) && typeof (value as { _thenUnwrap?: unknown })._thenUnwrap === "function"
}

function isStream(value: unknown): value is SdkStream<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function" &&
    (value as { controller?: unknown }).controller instanceof AbortController
  )
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T, void, undefined> {
  yield* items
}

/**
 * Reads one attempt's stream as normalized parts; aborting `signal` aborts the stream's request
 * (the SDK then ends the iteration quietly).
 */
async function* streamAttempt<Item, Raw>(
  stream: SdkStream<Item>,
  signal: AbortSignal,
  toParts: (item: Item) => NormalizedPart<Raw>[],
): AsyncGenerator<NormalizedPart<Raw>, void, undefined> {
  const abort = (): void => stream.controller.abort()
  if (signal.aborted) abort()
  else signal.addEventListener("abort", abort, { once: true })
  try {
    for await (const item of stream) yield* toParts(item)
  } finally {
    signal.removeEventListener("abort", abort)
  }
}

/**
 * Builds the recovering `create` of one resource.
 *
 * @param resource the real resource (`client.chat.completions` or `client.responses`): the SDK's
 *   `create` runs with it as `this`, so its requests go through the real client.
 * @param client the real client, handed to streams we construct (the SDK uses it for logging).
 */
export function recoveringCreate<StreamItem, StreamRaw, Data, DataRaw>(
  wire: WireProtocol<StreamItem, StreamRaw, Data, DataRaw>,
  resource: object,
  client: unknown,
  settings: CreateSettings,
): (body: unknown, options?: unknown) => unknown {
  const api = withTurnMark(wire)
  // Looked up at call time, so a patch the caller installed on the real resource still runs.
  const callOriginal = (body: unknown, options: unknown): unknown =>
    Reflect.apply(Reflect.get(resource, "create", resource) as (...args: unknown[]) => unknown, resource, [
      body,
      options,
    ])

  return function create(body: unknown, options?: unknown): unknown {
    if (typeof body !== "object" || body === null) return callOriginal(body, options)
    const request = body as Body
    const turnRequest = api.request(request, settings.calls)
    // A resend repeats its conversation, streamed or not: the protocol's conversation fields.
    const recalled = recallTurn(settings.memory, () =>
      contentKey({
        conversation: wire.conversation.map((field) => request[field] ?? null),
        tools: turnRequest.tools,
      }),
    )
    if (recalled.error !== undefined) return rejectedCall(recalled.error)
    const plan = planTurn(settings.resolved, {
      ...turnRequest,
      recoveriesBefore: (turnRequest.recoveriesBefore ?? 0) + recalled.spent,
    })
    if (plan.kind === "skip") return callOriginal(body, options)
    const first = callOriginal(body, options)
    // A custom transport may return a plain promise: nothing to derive from, so no recovery.
    if (!isSdkPromise(first)) return first
    const call: Call = {
      request,
      options,
      plan,
      turn: api.turn(request),
      stored: api.stored(request),
      callOriginal,
      recalled,
    }
    return first._thenUnwrap((data) =>
      isStream(data)
        ? recoverStream(api, call, data as SdkStream<StreamItem>, client, settings)
        : recoverData(api, call, data as Data, settings),
    )
  }
}

interface Call {
  readonly request: Body
  readonly options: unknown
  /** The request's plan: its tools, the recoveries earlier requests of the turn made. */
  readonly plan: RecoverPlan
  readonly turn: TurnKey
  /** The server stores the response (`wire.stored`). */
  readonly stored: boolean
  readonly callOriginal: (body: unknown, options: unknown) => unknown
  /** What earlier runs of the same turn left in the memory: records this run. */
  readonly recalled: RecalledTurn
}

/**
 * A request answered with `error` and not sent (a re-run of a turn that ended with it): what the
 * SDK's `APIPromise` offers its callers and helpers (`then`, `_thenUnwrap`, `withResponse`,
 * `asResponse`), each rejecting with `error`. Each rejection is made when asked for, so an
 * unread one is never an unhandled rejection.
 */
function rejectedCall(error: unknown): SdkPromise<never> {
  const rejected = (): Promise<never> => Promise.reject(error)
  const call: SdkPromise<never> & Promise<never> = {
    // biome-ignore lint/suspicious/noThenProperty: it is a promise-like on purpose.
    then: (onFulfilled, onRejected) => rejected().then(onFulfilled, onRejected),
    catch: (onRejected) => rejected().catch(onRejected),
    finally: (onFinally) => rejected().finally(onFinally),
    _thenUnwrap: () => call,
    [Symbol.toStringTag]: "Promise",
  }
  return Object.assign(call, { withResponse: rejected, asResponse: rejected })
}

/**
 * Marks the calls of a recovered attempt (round ≥ 1) with the turn's recoveries, so that the
 * next request of the turn, which carries their ids, knows its budget.
 */
function markCalls(call: Call, settings: CreateSettings, round: number, ids: readonly string[]): void {
  for (const id of ids) settings.calls.mark(id, call.plan.recoveriesBefore + round, call.turn)
}

async function* marked<Raw>(
  output: AsyncIterable<OutputPart<Raw>>,
  call: Call,
  settings: CreateSettings,
  callIds: (raw: Raw) => string[],
): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  let round = 0
  for await (const part of output) {
    if (part.type === "attempt-start") round = part.round
    else if (part.type === "tool-call" && round > 0) markCalls(call, settings, round, callIds(part.raw))
    yield part
  }
}

/** Sends a retry through the SDK's own `create`: the original body with the instruction placed. */
function sendRetry(
  api: Pick<ApiAdapter<unknown, unknown, unknown, unknown>, "retryBody">,
  call: Call,
  { instruction, signal }: AttemptContext,
): PromiseLike<unknown> {
  const body = api.retryBody(call.request, instruction ?? "", call.plan.placement)
  const options = isThenable(call.options)
    ? Promise.resolve(call.options).then((resolved) => retryRequestOptions(resolved, signal))
    : retryRequestOptions(call.options, signal)
  return call.callOriginal(body, options) as PromiseLike<unknown>
}

function splicerSettings(call: Call, settings: CreateSettings): SplicerSettings {
  return {
    tools: call.plan.tools,
    returnToolCallErrors: settings.returnToolCallErrors,
    // A stored response (Responses `store: true`) keeps the retry's id: a continuation chains from it.
    stored: call.stored,
  }
}

function recoverData<StreamItem, StreamRaw, Data, DataRaw>(
  api: ApiAdapter<StreamItem, StreamRaw, Data, DataRaw>,
  call: Call,
  data: Data,
  settings: CreateSettings,
): Promise<Data> {
  const signal = signalOf(call.options)
  const output = call.recalled.record(
    runTurn<DataRaw>(call.plan, {
      signal,
      attempt: async (round, context) => {
        if (round === 0) return fromArray(api.dataParts(data))
        const next = (await sendRetry(api, call, context)) as Data
        return fromArray(api.dataParts(next))
      },
    }),
  )
  return api.result(marked(output, call, settings, api.dataCallIds), splicerSettings(call, settings))
}

function recoverStream<StreamItem, StreamRaw, Data, DataRaw>(
  api: ApiAdapter<StreamItem, StreamRaw, Data, DataRaw>,
  call: Call,
  first: SdkStream<StreamItem>,
  client: unknown,
  settings: CreateSettings,
): SdkStream<StreamItem> {
  // Our stream's own controller: the caller's `stream.controller.abort()` and `options.signal`
  // end the turn; aborting an attempt internally never touches it.
  const outer = new AbortController()
  let current: SdkStream<StreamItem> = first
  outer.signal.addEventListener("abort", () => current.controller.abort(), { once: true })
  const userSignal = signalOf(call.options)
  const onUserAbort = (): void => outer.abort(userSignal?.reason)
  if (userSignal?.aborted === true) onUserAbort()
  else userSignal?.addEventListener("abort", onUserAbort, { once: true })

  let consumed = false
  async function* iterate(): AsyncGenerator<StreamItem, void, undefined> {
    if (consumed) throw new Error("Cannot iterate over a consumed stream, use `.tee()` to split the stream.")
    consumed = true
    const splicer = api.createSplicer(splicerSettings(call, settings))
    const turn = call.recalled.record(
      runTurn<StreamRaw>(call.plan, {
        // Chat Completions streams end with a `finish_reason`, Responses streams with their
        // lifecycle end: a stream that closes before it (the client ends quietly when a server closes
        // without `[DONE]`) was cut short.
        finishRequired: true,
        // What an abandoned attempt released stays shown: the retry continues after it.
        streaming: true,
        signal: outer.signal,
        attempt: async (round, context) => {
          if (round === 0) return streamAttempt(first, context.signal, api.streamParts)
          const next = (await sendRetry(api, call, context)) as SdkStream<StreamItem>
          current = next
          if (outer.signal.aborted) next.controller.abort()
          return streamAttempt(next, context.signal, api.streamParts)
        },
      }),
    )
    let done = false
    let round = 0
    try {
      for await (const part of turn) {
        if (part.type === "attempt-start") round = part.round
        else if (part.type === "tool-call" && round > 0)
          markCalls(call, settings, round, api.streamCallIds(part.raw))
        for (const item of splicer.push(part)) yield item
      }
      done = true
    } catch (error) {
      // Like the SDK's own stream: a user abort ends the iteration quietly.
      if (outer.signal.aborted) return
      throw error
    } finally {
      userSignal?.removeEventListener("abort", onUserAbort)
      // `break` or an error: abort whatever request is still open, as the SDK's stream does.
      if (!done) outer.abort()
    }
  }

  const Stream = first.constructor as StreamConstructor<StreamItem>
  return new Stream(() => iterate(), outer, client)
}
