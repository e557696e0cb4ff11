/** Anthropic Messages (`POST /v1/messages`) as a row of the protocol table. */
import { turnRecoveries } from "@tool-rescue/recovery"
import { messagesApi, messagesToolNames } from "./messages-api.ts"
import {
  type AnyApi,
  callMark,
  eventType,
  isRecord,
  markId,
  type Protocol,
  type ProtocolError,
} from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"

const anthropicError = (error: ProtocolError) => ({
  type: "error",
  error: { type: error.type, code: error.code, message: error.message },
})

function blocksOf(message: unknown): unknown[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content : []
}

/** A user message that only carries tool results continues the turn; any other starts one. */
function startsTurn(message: unknown): boolean {
  if (!isRecord(message) || message.role !== "user") return false
  const blocks = blocksOf(message)
  return blocks.length === 0 || !blocks.every((block) => isRecord(block) && block.type === "tool_result")
}

function blockMark(block: unknown): number {
  if (!isRecord(block)) return 0
  if (block.type === "tool_use") return callMark(block.id)
  if (block.type === "tool_result") return callMark(block.tool_use_id)
  return 0
}

function markBlock(block: unknown, recoveries: number): unknown {
  return isRecord(block) && block.type === "tool_use" ? { ...block, id: markId(block.id, recoveries) } : block
}

/** Anthropic Messages: events named by type; an error is an `error` event with Anthropic's error body. */
export const messagesProtocol: Protocol = {
  name: "messages",
  api: messagesApi as AnyApi,
  eventName: eventType,
  isStreamError: (event, name) => name === "error" || eventType(event) === "error",
  sentinel: false,
  errorBody: anthropicError,
  errorFrame: (error) => sseFrame(JSON.stringify(anthropicError(error)), "error"),
  turnRequest(body) {
    const choice = body.tool_choice
    return {
      tools: messagesToolNames(body),
      toolChoice: isRecord(choice) && choice.type === "none" ? "none" : "auto",
    }
  },
  recoveriesBefore(body) {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : []
    return turnRecoveries(messages, {
      startsTurn,
      recoveries: (message) => Math.max(0, ...blocksOf(message).map(blockMark)),
    })
  },
  usage(item) {
    if (!isRecord(item)) return undefined
    // Streamed: `message_delta` carries the usage; whole: the message's `usage`.
    if (item.type === "message_delta" || item.type === "message")
      return isRecord(item.usage) ? item.usage : undefined
    return undefined
  },
  withUsage: (item, usage) => (isRecord(item) ? { ...item, usage } : item),
  markCalls(item, recoveries) {
    if (!isRecord(item)) return item
    if (item.type === "content_block_start")
      return { ...item, content_block: markBlock(item.content_block, recoveries) }
    if (item.type === "message")
      return { ...item, content: blocksOf(item).map((b) => markBlock(b, recoveries)) }
    return item
  },
}
