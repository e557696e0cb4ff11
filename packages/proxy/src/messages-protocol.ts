/** Anthropic Messages (`POST /v1/messages`) as a row of the protocol table. */
import { messagesApi } from "./messages-api.ts"
import { type AnyApi, eventType, isRecord, type Protocol, type ProtocolError } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"
import { idMarks, markId } from "./turn-mark.ts"

const anthropicError = (error: ProtocolError) => ({
  type: "error",
  error: { type: error.type, code: error.code, message: error.message },
})

function blocksOf(message: unknown): unknown[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content : []
}

function markBlock(block: unknown, recoveries: number): unknown {
  return isRecord(block) && block.type === "tool_use" ? { ...block, id: markId(block.id, recoveries) } : block
}

/** Anthropic Messages: events named by type; an error is an `error` event with Anthropic's error body. */
export const messagesProtocol: Protocol = {
  name: "messages",
  api: messagesApi as AnyApi,
  fields: {
    stream: ["boolean"],
    messages: ["array"],
    system: ["string", "array"],
    tools: ["array"],
    tool_choice: ["object"],
  },
  eventName: eventType,
  isStreamError: (event, name) => name === "error" || eventType(event) === "error",
  sentinel: false,
  errorBody: anthropicError,
  errorFrame: (error) => sseFrame(JSON.stringify(anthropicError(error)), "error"),
  turnRequest: (body) => messagesApi.request(body, idMarks),
  markCalls(item, recoveries) {
    if (!isRecord(item)) return item
    if (item.type === "content_block_start")
      return { ...item, content_block: markBlock(item.content_block, recoveries) }
    if (item.type === "message")
      return { ...item, content: blocksOf(item).map((b) => markBlock(b, recoveries)) }
    return item
  },
}
