/**
 * Anthropic Messages (`POST /v1/messages`), the whole protocol in one object: the request
 * (`messages-request.ts`), events and messages ↔ parts (`messages-parts.ts`), where the
 * `tool_use` ids are, SSE framing (events named by type) and Anthropic's error shape.
 */
import { arrayField, eventType, isRecord } from "./json.ts"
import {
  createMessagesSplicer,
  type MessageObject,
  type MessageRef,
  type MessagesEvent,
  messageEventCallIds,
  messageEventParts,
  messageParts,
  messageRefCallIds,
  messageResult,
} from "./messages-parts.ts"
import {
  messagesMapHistoryCalls,
  messagesRequest,
  messagesRetryBody,
  messagesTurnStart,
} from "./messages-request.ts"
import { typeNamedEvents } from "./type-named-events.ts"
import type { ErrorShape, WireError } from "./wire-error.ts"
import type { WireProtocol } from "./wire-protocol.ts"

const anthropicErrorBody = (error: WireError) => ({
  type: "error",
  error: { type: error.type, code: error.code, message: error.message },
})

/** Anthropic's error shape: `{ type: "error", error }`, in a stream an `error` event. */
const messagesErrors: ErrorShape = {
  types: {
    "invalid-request": "invalid_request_error",
    "too-large": "request_too_large",
    "tool-call-recovery": "tool_call_recovery_error",
    server: "api_error",
    upstream: "api_error",
    authentication: "authentication_error",
    permission: "permission_error",
  },
  body: anthropicErrorBody,
  event: (error) => ({ name: "error", data: anthropicErrorBody(error) }),
  eventName: "error",
}

function markBlock(block: unknown, mark: (id: unknown) => unknown): unknown {
  return isRecord(block) && block.type === "tool_use" ? { ...block, id: mark(block.id) } : block
}

/** A `content_block_start` or a whole message with its `tool_use` ids marked. */
function markMessagesCalls(item: unknown, mark: (id: unknown) => unknown): unknown {
  if (!isRecord(item)) return item
  if (item.type === "content_block_start")
    return { ...item, content_block: markBlock(item.content_block, mark) }
  if (item.type === "message")
    return { ...item, content: arrayField(item, "content").map((block) => markBlock(block, mark)) }
  return item
}

/**
 * Anthropic Messages as a {@link WireProtocol}: streamed events and whole messages (a whole
 * message's parts carry a {@link MessageRef}: the message and the index of their block).
 *
 * @example
 * ```ts
 * import { messages } from "@tool-rescue/wire"
 *
 * messages.retryBody({ model: "m", system: "Be brief.", messages: [] }, "Use tool calls.", "system")
 * // { model: "m", system: "Be brief.\n\nUse tool calls.", messages: [] }
 * ```
 */
export const messages: WireProtocol<MessagesEvent, MessagesEvent, MessageObject, MessageRef> = {
  request: messagesRequest,
  turnStart: messagesTurnStart,
  stored: () => false,
  retryBody: messagesRetryBody,
  streamParts: messageEventParts,
  streamCallIds: messageEventCallIds,
  createSplicer: createMessagesSplicer,
  dataParts: messageParts,
  dataCallIds: messageRefCallIds,
  result: messageResult,
  fields: {
    stream: ["boolean"],
    messages: ["array"],
    system: ["string", "array"],
    tools: ["array"],
    tool_choice: ["object"],
  },
  conversation: ["model", "system", "messages"],
  ...typeNamedEvents,
  isStreamEnd: (event) => eventType(event) === "message_stop",
  markCalls: markMessagesCalls,
  mapHistoryCalls: messagesMapHistoryCalls,
  errors: messagesErrors,
}
