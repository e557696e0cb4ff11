/** Chat Completions (`POST /v1/chat/completions`) as a row of the protocol table. */

import { chatApi } from "@tool-rescue/openai/wire"
import { turnRecoveries } from "@tool-rescue/recovery"
import { type AnyApi, callMark, isRecord, markId, type Protocol, type ProtocolError } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"

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
  eventName: () => undefined,
  isStreamError: (event) => isRecord(event) && event.error !== undefined && event.error !== null,
  sentinel: true,
  errorBody: openAiError,
  errorFrame: (error) => sseFrame(JSON.stringify(openAiError(error))),
  turnRequest(body) {
    // `@tool-rescue/openai`'s reading of the request (tool names, `n > 1`, …) as planTurn's input.
    const plan = chatApi.plan(body)
    return plan.kind === "recover" ? { tools: plan.tools } : { tools: [], unsupported: plan.reason }
  },
  recoveriesBefore(body) {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : []
    return turnRecoveries(messages, {
      startsTurn: (message) => isRecord(message) && message.role === "user",
      recoveries: (message) =>
        isRecord(message) && message.role === "tool"
          ? callMark(message.tool_call_id)
          : Math.max(0, ...callsOf(message).map((call) => (isRecord(call) ? callMark(call.id) : 0))),
    })
  },
  usage: (item) => (isRecord(item) && isRecord(item.usage) ? item.usage : undefined),
  withUsage: (item, usage) => (isRecord(item) ? { ...item, usage } : item),
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
