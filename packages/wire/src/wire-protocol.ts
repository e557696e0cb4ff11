import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import type { TurnRequest } from "@tool-rescue/recovery/adapter"
import type { JsonKind, JsonObject } from "./json.ts"
import type { ErrorShape, WireError } from "./wire-error.ts"

/**
 * The recoveries a tool-call id of the request's history was marked with (0 for an unmarked
 * one). Each front end keeps its own mark: the `openai` adapter remembers the ids it returned,
 * the proxy writes the mark into the id itself.
 */
export type CallMarks = (id: unknown) => number

/**
 * What a splicer or result builder needs to know about the call.
 *
 * @example
 * ```ts
 * import type { SplicerSettings } from "@tool-rescue/wire"
 *
 * const settings: SplicerSettings = { tools: ["read_file"], returnToolCallErrors: false }
 * ```
 */
export interface SplicerSettings {
  /** Names of the tools offered (for `tool_call_errors`). */
  readonly tools: readonly string[]
  /** Attach `tool_call_errors` (the answers to calls of tools not offered) to the result. */
  readonly returnToolCallErrors: boolean
  /**
   * The server stores the response (Responses `store: true`, {@link WireProtocol.stored}): a
   * recovered stream's terminal event then carries the retry's response id, the id a continuation by `previous_response_id` must chain from (the first
   * attempt's stored response holds the malformed output). Otherwise the first attempt's id is
   * kept, as the openai client's `responses.stream()` helper requires. @defaultValue false
   */
  readonly stored?: boolean
}

/** Maps recovery's output parts back to the stream items the client sees. */
export interface Splicer<Raw, Item> {
  /** The items for one output part: none (withheld, or a part that shares its item), one, or more. */
  push(part: OutputPart<Raw>): Item[]
  /**
   * The items that end the stream of a turn recovery gave up on (`repeated-markup`, …), in the
   * form the protocol's clients treat as final rather than as a dropped connection to reconnect
   * (Responses: a terminal `response.failed`). Absent: the protocol's error event
   * ({@link ErrorShape.event}) is that form.
   */
  fail?(error: WireError): Item[]
}

/**
 * One wire protocol, as a table of operations: what a request tells recovery's `planTurn`, the
 * retry body, stream items and whole results ↔ normalized parts, the splice of a retry into one
 * stream, where the tool-call ids are, and the protocol's SSE framing and error shape. Front ends
 * (the `openai` adapter, the proxy) run the turn; the protocol is all data and mapping.
 *
 * `StreamItem` is one streamed event, `StreamRaw` the raw value its parts carry; `Data` is a
 * whole (non-streamed) result, `DataRaw` the raw value its parts carry.
 *
 * @example
 * ```ts
 * import { messages } from "@tool-rescue/wire"
 *
 * messages.retryBody({ model: "m", system: "Be brief.", messages: [] }, "Use tool calls.", "system")
 * // { model: "m", system: "Be brief.\n\nUse tool calls.", messages: [] }
 * ```
 */
export interface WireProtocol<StreamItem, StreamRaw, Data, DataRaw> {
  /**
   * What the request tells recovery's `planTurn`: the offered tools, the tool choice, the
   * protocol's own reasons recovery cannot apply, and the recoveries the turn's history shows
   * (the largest of `marks` on the tool-call ids after the message that started the turn).
   */
  request(body: JsonObject, marks: CallMarks): TurnRequest
  /**
   * What started the request's turn: its last user message (a string input for Responses), or
   * `undefined` when it has none. A front end that keys its marks by turn hashes it.
   */
  turnStart(body: JsonObject): unknown
  /** Whether the server stores the response of `body` (Responses `store: true`; never for the others). */
  stored(body: JsonObject): boolean
  /** The retry body: the original body with the instruction placed (never mutated). */
  retryBody(body: JsonObject, instruction: string, placement: "system" | "user"): JsonObject
  /** Parts of one streamed item. */
  streamParts(item: StreamItem): NormalizedPart<StreamRaw>[]
  /** The call ids a streamed tool-call part introduces. */
  streamCallIds(raw: StreamRaw): string[]
  /** The output side of a recovered stream. */
  createSplicer(settings: SplicerSettings): Splicer<StreamRaw, StreamItem>
  /** Parts of one non-streamed result. */
  dataParts(data: Data): NormalizedPart<DataRaw>[]
  /** The call ids of a non-streamed tool-call part. */
  dataCallIds(raw: DataRaw): string[]
  /** The non-streamed result from recovery's output. */
  result(output: AsyncIterable<OutputPart<DataRaw>>, settings: SplicerSettings): Promise<Data>
  /**
   * The request fields a front end reads (to decide, to retry), with the JSON kinds the protocol
   * allows: one of another kind is a bad request. Other fields go upstream as they came (model
   * servers extend the protocols: vLLM's `chat_template_kwargs`, …).
   */
  readonly fields: Readonly<Record<string, readonly JsonKind[]>>
  /**
   * The request fields that hold the conversation: what a client sends unchanged when it resends
   * the same turn (after an error, or without streaming). Transport settings (`stream`, token
   * limits) are not among them. A front end that remembers turns keys them by these.
   */
  readonly conversation: readonly string[]
  /** The `event:` name written before an item's data (Responses and Anthropic name events by type). */
  eventName(item: unknown): string | undefined
  /** The stream ends with `data: [DONE]` (Chat Completions). */
  readonly sentinel: boolean
  /** A stream event that reports an error (its SSE `event:` name is `name`). */
  isStreamError(event: unknown, name: string | undefined): boolean
  /**
   * A stream event after which the protocol sends nothing more: Responses' `response.completed`,
   * `response.failed` and `response.incomplete`, Anthropic's `message_stop` (Chat Completions
   * ends with its `[DONE]` sentinel instead: never an event). A front end finishes its client's
   * stream there, whether or not the upstream closes its response.
   */
  isStreamEnd(event: unknown): boolean
  /**
   * `item` (a stream event or a whole result) with each of its tool-call ids replaced by
   * `mark(id)`; `item` itself when it has none.
   */
  markCalls(item: unknown, mark: (id: unknown) => unknown): unknown
  /**
   * `body` with each tool-call id of its history (the calls of earlier responses and the results
   * that answer them) replaced by `map(id)`; `body` itself when no id changed. A front end that
   * writes its own marks into ids takes them off here, so the server sees only ids it issued.
   */
  mapHistoryCalls(body: JsonObject, map: (id: unknown) => unknown): JsonObject
  /** The protocol's error shape. */
  readonly errors: ErrorShape
}

/**
 * Any protocol, over parsed JSON: what a front end that reads JSON off the network holds (the
 * items it passes are whatever the upstream sent, read through the protocol's guards).
 */
export type AnyWireProtocol = WireProtocol<unknown, unknown, unknown, unknown>
