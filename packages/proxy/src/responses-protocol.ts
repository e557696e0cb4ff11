/** OpenAI Responses (`POST /v1/responses`) as a row of the protocol table. */

import { responsesApi } from "@tool-rescue/openai/wire"
import { turnRecoveries } from "@tool-rescue/recovery"
import { openAiError } from "./chat-protocol.ts"
import { type AnyApi, callMark, eventType, isRecord, markId, type Protocol } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"

type Item = Record<string, unknown>

const CALL_ITEMS: ReadonlySet<unknown> = new Set(["function_call", "custom_tool_call"])
const OUTPUT_ITEMS: ReadonlySet<unknown> = new Set(["function_call_output", "custom_tool_call_output"])

function markItem(item: unknown, recoveries: number): unknown {
  return isRecord(item) && CALL_ITEMS.has(item.type)
    ? { ...item, call_id: markId(item.call_id, recoveries) }
    : item
}

function markResponse(response: Item, recoveries: number): Item {
  return Array.isArray(response.output)
    ? { ...response, output: response.output.map((item) => markItem(item, recoveries)) }
    : response
}

/** A stream event (`response.*`) or a whole response. */
function isEvent(item: Item): boolean {
  return typeof item.type === "string" && item.type !== "response" && item.object !== "response"
}

/** Responses: events named by type; an error is an `error` event (the openai client reads its `error`). */
export const responsesProtocol: Protocol = {
  name: "responses",
  api: responsesApi as AnyApi,
  eventName: eventType,
  isStreamError: (event, name) => name === "error" || eventType(event) === "error",
  sentinel: false,
  errorBody: openAiError,
  errorFrame: (error) =>
    sseFrame(
      JSON.stringify({ type: "error", code: error.code, message: error.message, ...openAiError(error) }),
      "error",
    ),
  turnRequest(body) {
    const plan = responsesApi.plan(body)
    return plan.kind === "recover" ? { tools: plan.tools } : { tools: [], unsupported: plan.reason }
  },
  recoveriesBefore(body) {
    const input = Array.isArray(body.input) ? (body.input as unknown[]) : []
    return turnRecoveries(input, {
      startsTurn: (item) => isRecord(item) && item.role === "user",
      recoveries: (item) =>
        isRecord(item) && (CALL_ITEMS.has(item.type) || OUTPUT_ITEMS.has(item.type))
          ? callMark(item.call_id)
          : 0,
    })
  },
  usage(item) {
    if (!isRecord(item)) return undefined
    const response = isEvent(item) ? item.response : item
    return isRecord(response) && isRecord(response.usage) ? response.usage : undefined
  },
  withUsage(item, usage) {
    if (!isRecord(item)) return item
    if (!isEvent(item)) return { ...item, usage }
    return isRecord(item.response) ? { ...item, response: { ...item.response, usage } } : item
  },
  markCalls(item, recoveries) {
    if (!isRecord(item)) return item
    if (!isEvent(item)) return markResponse(item, recoveries)
    if (isRecord(item.item) && CALL_ITEMS.has(item.item.type))
      return { ...item, item: markItem(item.item, recoveries) }
    if (isRecord(item.response)) return { ...item, response: markResponse(item.response, recoveries) }
    return item
  },
}
