/** Chat Completions (`POST /v1/chat/completions`) as a row of the protocol table. */

import { chatApi } from "@tool-rescue/openai/wire"
import { type AnyApi, isRecord, type Protocol, type ProtocolError } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"
import { idMarks, markId } from "./turn-mark.ts"

/** OpenAI's error body (Chat Completions and Responses). */
export const openAiError = (error: ProtocolError): { error: Record<string, unknown> } => ({
  error: { type: error.type, code: error.code, message: error.message, param: null },
})

type Message = Record<string, unknown>

/** A message's tool calls (`tool_calls` of an assistant message or a streamed delta). */
function callsOf(message: unknown): unknown[] {
  return isRecord(message) && Array.isArray(message.tool_calls) ? message.tool_calls : []
}

function withMarkedCalls(message: Message, recoveries: number): Message {
  const calls = callsOf(message)
  if (calls.length === 0) return message
  return {
    ...message,
    tool_calls: calls.map((call) => (isRecord(call) ? { ...call, id: markId(call.id, recoveries) } : call)),
  }
}

/** Chat Completions: unnamed events, an error is `data: {"error": …}`, then `[DONE]`. */
export const chatProtocol: Protocol = {
  name: "chat",
  api: chatApi as AnyApi,
  fields: {
    stream: ["boolean"],
    messages: ["array"],
    tools: ["array"],
    tool_choice: ["string", "object"],
    n: ["number"],
  },
  eventName: () => undefined,
  isStreamError: (event) => isRecord(event) && event.error !== undefined && event.error !== null,
  sentinel: true,
  errorBody: openAiError,
  errorFrame: (error) => sseFrame(JSON.stringify(openAiError(error))),
  // `@tool-rescue/openai`'s reading of the request (tools, tool choice, `n > 1`, the history's
  // marks) as planTurn's input.
  turnRequest: (body) => chatApi.request(body, idMarks),
  markCalls(item, recoveries) {
    if (!isRecord(item) || !Array.isArray(item.choices)) return item
    const choices = item.choices.map((choice) => {
      if (!isRecord(choice)) return choice
      if (isRecord(choice.delta) && callsOf(choice.delta).length > 0)
        return { ...choice, delta: withMarkedCalls(choice.delta, recoveries) }
      if (isRecord(choice.message) && callsOf(choice.message).length > 0)
        return { ...choice, message: withMarkedCalls(choice.message, recoveries) }
      return choice
    })
    return choices.every((choice, i) => choice === (item.choices as unknown[])[i])
      ? item
      : { ...item, choices }
  },
}
