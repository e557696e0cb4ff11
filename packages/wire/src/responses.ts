/**
 * OpenAI Responses (`POST /v1/responses`), the whole protocol in one object: the request and its
 * stateful fields ({@link responsesRequest}: `background` and `conversation` are not
 * recoverable; `previous_response_id` and `store` go upstream as they came), events and
 * responses ↔ parts (`response-event-parts.ts`, `response-parts.ts`), where the tool-call ids
 * are, SSE framing (events named by type) and OpenAI's error shape.
 */
import { eventType, isRecord, type JsonObject } from "./json.ts"
import {
  createResponsesSplicer,
  eventCallIds,
  eventParts,
  type ResponseEvent,
} from "./response-event-parts.ts"
import {
  type ResponseObject,
  type ResponseRef,
  refCallIds,
  responseParts,
  responseResult,
} from "./response-parts.ts"
import {
  responsesMapHistoryCalls,
  responsesRequest,
  responsesRetryBody,
  responsesStored,
  responsesTurnStart,
} from "./responses-request.ts"
import { typeNamedEvents } from "./type-named-events.ts"
import { type ErrorShape, openAiErrorBody, openAiErrorTypes } from "./wire-error.ts"
import type { WireProtocol } from "./wire-protocol.ts"

/** OpenAI's error shape on Responses: a stream ends with an `error` event (the openai client reads its `error`). */
const responsesErrors: ErrorShape = {
  types: openAiErrorTypes,
  body: openAiErrorBody,
  event: (error) => ({
    name: "error",
    data: { type: "error", code: error.code, message: error.message, ...openAiErrorBody(error) },
  }),
  eventName: "error",
}

const CALL_ITEMS: ReadonlySet<unknown> = new Set(["function_call", "custom_tool_call"])

function markItem(item: unknown, mark: (id: unknown) => unknown): unknown {
  return isRecord(item) && CALL_ITEMS.has(item.type) ? { ...item, call_id: mark(item.call_id) } : item
}

function markResponse(response: JsonObject, mark: (id: unknown) => unknown): JsonObject {
  return Array.isArray(response.output)
    ? { ...response, output: response.output.map((item) => markItem(item, mark)) }
    : response
}

/** A stream event (`response.*`), not a whole response. */
function isEvent(item: JsonObject): boolean {
  return typeof item.type === "string" && item.type !== "response" && item.object !== "response"
}

/** An event or a whole response with the `call_id`s of its call items marked. */
function markResponsesCalls(item: unknown, mark: (id: unknown) => unknown): unknown {
  if (!isRecord(item)) return item
  if (!isEvent(item)) return markResponse(item, mark)
  if (isRecord(item.item) && CALL_ITEMS.has(item.item.type))
    return { ...item, item: markItem(item.item, mark) }
  if (isRecord(item.response)) return { ...item, response: markResponse(item.response, mark) }
  return item
}

/** The lifecycle events that end a Responses stream. */
const RESPONSE_ENDS: ReadonlySet<string | undefined> = new Set([
  "response.completed",
  "response.failed",
  "response.incomplete",
])

/**
 * Responses as a {@link WireProtocol}: streamed events and whole responses (a whole response's
 * parts carry a {@link ResponseRef}: the response and the content part they came from).
 *
 * @example
 * ```ts
 * import { responses } from "@tool-rescue/wire"
 *
 * responses.request({ model: "qwen3", input: "hi", tools: [], background: true }, () => 0).unsupported
 * // "background"
 * ```
 */
export const responses: WireProtocol<ResponseEvent, ResponseEvent, ResponseObject, ResponseRef> = {
  request: responsesRequest,
  turnStart: responsesTurnStart,
  stored: responsesStored,
  retryBody: responsesRetryBody,
  streamParts: eventParts,
  streamCallIds: eventCallIds,
  createSplicer: createResponsesSplicer,
  dataParts: responseParts,
  dataCallIds: refCallIds,
  result: responseResult,
  fields: {
    stream: ["boolean"],
    input: ["string", "array"],
    instructions: ["string"],
    tools: ["array"],
    tool_choice: ["string", "object"],
  },
  conversation: ["model", "instructions", "input", "previous_response_id", "conversation"],
  ...typeNamedEvents,
  isStreamEnd: (event) => RESPONSE_ENDS.has(eventType(event)),
  markCalls: markResponsesCalls,
  mapHistoryCalls: responsesMapHistoryCalls,
  errors: responsesErrors,
}
