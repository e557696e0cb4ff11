/** OpenAI Responses (`POST /v1/responses`) as a row of the protocol table. */

import { responsesApi } from "@tool-rescue/openai/wire"
import { openAiError } from "./chat-protocol.ts"
import { type AnyApi, eventType, isRecord, type Protocol } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"
import { idMarks, markId } from "./turn-mark.ts"

type Item = Record<string, unknown>

const CALL_ITEMS: ReadonlySet<unknown> = new Set(["function_call", "custom_tool_call"])

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
  fields: {
    stream: ["boolean"],
    input: ["string", "array"],
    instructions: ["string"],
    tools: ["array"],
    tool_choice: ["string", "object"],
  },
  eventName: eventType,
  isStreamError: (event, name) => name === "error" || eventType(event) === "error",
  sentinel: false,
  errorBody: openAiError,
  errorFrame: (error) =>
    sseFrame(
      JSON.stringify({ type: "error", code: error.code, message: error.message, ...openAiError(error) }),
      "error",
    ),
  turnRequest: (body) => responsesApi.request(body, idMarks),
  markCalls(item, recoveries) {
    if (!isRecord(item)) return item
    if (!isEvent(item)) return markResponse(item, recoveries)
    if (isRecord(item.item) && CALL_ITEMS.has(item.item.type))
      return { ...item, item: markItem(item.item, recoveries) }
    if (isRecord(item.response)) return { ...item, response: markResponse(item.response, recoveries) }
    return item
  },
}
