/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), the whole protocol in one object: the
 * request ({@link chatRequest}), chunks and completions ↔ parts (`chat-chunk-parts.ts`,
 * `chat-completion-parts.ts`), where the tool-call ids are, SSE framing (unnamed events, a final
 * `data: [DONE]`) and OpenAI's error shape.
 */
import {
  type ChatChunk,
  type ChatRaw,
  chunkCallIds,
  chunkParts,
  createChatSplicer,
} from "./chat-chunk-parts.ts"
import {
  type ChatCompletion,
  completionCallIds,
  completionParts,
  completionResult,
} from "./chat-completion-parts.ts"
import { chatMapHistoryCalls, chatRequest, chatRetryBody, chatTurnStart } from "./chat-request.ts"
import { arrayField, isRecord, type JsonObject } from "./json.ts"
import { type ErrorShape, openAiErrorBody, openAiErrorTypes } from "./wire-error.ts"
import type { WireProtocol } from "./wire-protocol.ts"

/** OpenAI's error shape on Chat Completions: a stream ends with `data: {"error": …}`. */
const chatErrors: ErrorShape = {
  types: openAiErrorTypes,
  body: openAiErrorBody,
  event: (error) => ({ name: undefined, data: openAiErrorBody(error) }),
  eventName: undefined,
}

/** A message or delta with each of its `tool_calls`' ids marked. */
function withMarkedCalls(message: JsonObject, mark: (id: unknown) => unknown): JsonObject {
  const calls = arrayField(message, "tool_calls")
  if (calls.length === 0) return message
  return {
    ...message,
    tool_calls: calls.map((call) => (isRecord(call) ? { ...call, id: mark(call.id) } : call)),
  }
}

/** A chunk or completion with the ids of its choices' tool calls marked. */
function markChatCalls(item: unknown, mark: (id: unknown) => unknown): unknown {
  if (!isRecord(item) || !Array.isArray(item.choices)) return item
  const before: readonly unknown[] = item.choices
  const choices = before.map((choice) => {
    if (!isRecord(choice)) return choice
    if (isRecord(choice.delta) && arrayField(choice.delta, "tool_calls").length > 0)
      return { ...choice, delta: withMarkedCalls(choice.delta, mark) }
    if (isRecord(choice.message) && arrayField(choice.message, "tool_calls").length > 0)
      return { ...choice, message: withMarkedCalls(choice.message, mark) }
    return choice
  })
  return choices.every((choice, i) => choice === before[i]) ? item : { ...item, choices }
}

/**
 * Chat Completions as a {@link WireProtocol}: streamed chunks (a chunk's parts carry it, or
 * `undefined` for the second and later calls one chunk names) and whole completions.
 *
 * @example
 * ```ts
 * import { chatCompletions } from "@tool-rescue/wire"
 *
 * chatCompletions.request({ model: "qwen3", messages: [], tools: [], n: 2 }, () => 0).unsupported
 * // "multiple-choices"
 * ```
 */
export const chatCompletions: WireProtocol<ChatChunk, ChatRaw, ChatCompletion, ChatCompletion> = {
  request: chatRequest,
  turnStart: chatTurnStart,
  stored: () => false,
  retryBody: chatRetryBody,
  streamParts: chunkParts,
  streamCallIds: chunkCallIds,
  createSplicer: createChatSplicer,
  dataParts: completionParts,
  dataCallIds: completionCallIds,
  result: completionResult,
  fields: {
    stream: ["boolean"],
    messages: ["array"],
    tools: ["array"],
    tool_choice: ["string", "object"],
    n: ["number"],
  },
  conversation: ["model", "messages"],
  eventName: () => undefined,
  sentinel: true,
  isStreamError: (event) => isRecord(event) && event.error !== undefined && event.error !== null,
  // The `[DONE]` sentinel ends a stream: no event does.
  isStreamEnd: () => false,
  markCalls: markChatCalls,
  mapHistoryCalls: chatMapHistoryCalls,
  errors: chatErrors,
}
