/**
 * What a Responses request tells recovery's `planTurn` (the offered tools, the tool choice, the
 * stateful fields, the recoveries the turn's history shows), and the retry body. This protocol's
 * own reasons recovery cannot apply:
 * - `background: true`: the response is polled, not returned;
 * - `conversation`: the server adds the malformed output to the conversation, so a retry could
 *   not leave it out.
 *
 * The retry, placement `"system"`: the instruction appended to `instructions`, which is
 * template-safe and is not inherited through `previous_response_id`; placement `"user"`: a final
 * user input item.
 */
import {
  type PromptOperations,
  placeInstruction,
  type TurnRequest,
  turnRecoveries,
} from "@tool-rescue/recovery/adapter"
import { isUserMessage, openAiToolChoice } from "./chat-request.ts"
import { arrayField, isRecord, type JsonObject, mapChanged } from "./json.ts"
import type { CallMarks } from "./wire-protocol.ts"

/** Function and custom tool names of a Responses request (`tools[].name` of those types). */
export function responsesToolNames(body: JsonObject): string[] {
  const names: string[] = []
  for (const tool of arrayField(body, "tools")) {
    if (!isRecord(tool) || (tool.type !== "function" && tool.type !== "custom")) continue
    const name = tool.name
    if (typeof name === "string" && name.length > 0 && !names.includes(name)) names.push(name)
  }
  return names
}

/** What starts a Responses request's turn: a string input, or its last user input item. */
export function responsesTurnStart(body: JsonObject): unknown {
  if (typeof body.input === "string") return body.input
  return arrayField(body, "input").findLast(isUserMessage)
}

/** The request of a Responses call. */
export function responsesRequest(body: JsonObject, marks: CallMarks): TurnRequest {
  return {
    tools: responsesToolNames(body),
    toolChoice: openAiToolChoice(body.tool_choice),
    unsupported: body.background === true ? "background" : undefined,
    noRetry:
      body.conversation !== undefined && body.conversation !== null
        ? "the request's `conversation` already holds the malformed response, and a retry cannot leave it out (chain by `previous_response_id` instead for a leak to be retried)"
        : undefined,
    // A plain string input is a new user message: a new turn.
    model: typeof body.model === "string" ? body.model : undefined,
    recoveriesBefore: turnRecoveries(arrayField(body, "input"), {
      startsTurn: isUserMessage,
      recoveries: (item) => (isRecord(item) ? marks(item.call_id) : 0),
    }),
  }
}

/** Whether the server stores the response (`store: true`): a continuation may chain from its id. */
export function responsesStored(body: JsonObject): boolean {
  return body.store === true
}

/**
 * Responses: the `call_id` of each input item that has one (`function_call`, `custom_tool_call`
 * and their `*_output` items).
 */
export function responsesMapHistoryCalls(body: JsonObject, map: (id: unknown) => unknown): JsonObject {
  const input = arrayField(body, "input")
  const mapped = mapChanged(input, (item) => {
    if (!isRecord(item) || !("call_id" in item)) return item
    const id = map(item.call_id)
    return id === item.call_id ? item : { ...item, call_id: id }
  })
  return mapped === input ? body : { ...body, input: mapped }
}

/** Responses: `instructions` is the system message (template-safe, not inherited through `previous_response_id`). */
const responsesOperations: PromptOperations<JsonObject> = {
  mergeSystem: (body, merge) => ({
    ...body,
    instructions: merge(typeof body.instructions === "string" ? body.instructions : ""),
  }),
  prependSystem: (body, text) => ({ ...body, instructions: text }),
  appendUser(body, text) {
    const item = { type: "message", role: "user", content: text }
    const input = body.input
    if (typeof input === "string") {
      return { ...body, input: [{ type: "message", role: "user", content: input }, item] }
    }
    return { ...body, input: [...(Array.isArray(input) ? input : []), item] }
  },
}

/**
 * The Responses retry body: the instruction appended to `instructions` (placement `"system"`) or
 * a user input item appended to `input` (placement `"user"`).
 */
export function responsesRetryBody(
  body: JsonObject,
  instruction: string,
  placement: "system" | "user",
): JsonObject {
  return placeInstruction(body, instruction, placement, responsesOperations)
}
