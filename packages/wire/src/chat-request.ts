/**
 * What a Chat Completions request tells recovery's `planTurn` (the offered tools, the tool
 * choice, `n > 1`, the recoveries the turn's history shows), and the retry body. The rules
 * themselves (skip `no-tools`, `tool-choice-none`, the per-turn budget) live in
 * `@tool-rescue/recovery`. This protocol's own reason: `n > 1`, several choices cannot be
 * spliced into one retry.
 *
 * The retry is the original request, never the malformed response, plus the host instruction:
 * placement `"system"` merges it into the leading system/developer message, or a new system
 * message at index 0. Qwen3.5+ chat templates raise on a system message that is not first (vLLM
 * answers 400, llama.cpp 500), so a trailing system message is never sent. Placement `"user"`
 * appends a final user message.
 */
import {
  type PromptOperations,
  placeInstruction,
  type TurnRequest,
  turnRecoveries,
} from "@tool-rescue/recovery/adapter"
import { arrayField, isRecord, type JsonObject, mapChanged } from "./json.ts"
import type { CallMarks } from "./wire-protocol.ts"

function nameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === "string" && value.name.length > 0 ? value.name : undefined
}

/** Function and custom tool names of a chat request (`tools[].function.name`, `tools[].custom.name`). */
export function chatToolNames(body: JsonObject): string[] {
  const names: string[] = []
  for (const tool of arrayField(body, "tools")) {
    if (!isRecord(tool)) continue
    const name = tool.type === "custom" ? nameOf(tool.custom) : nameOf(tool.function)
    if (name !== undefined && !names.includes(name)) names.push(name)
  }
  return names
}

/** OpenAI's `tool_choice` by kind: `"none"`, `"auto"`, `"required"`, or a named tool (an object). */
export function openAiToolChoice(choice: unknown): TurnRequest["toolChoice"] {
  if (choice === "none" || choice === "auto" || choice === "required") return choice
  return isRecord(choice) ? "tool" : undefined
}

/** A chat message of the turn: the largest mark of the calls it makes or answers. */
function chatMessageRecoveries(message: unknown, marks: CallMarks): number {
  if (!isRecord(message)) return 0
  let most = marks(message.tool_call_id)
  for (const call of arrayField(message, "tool_calls"))
    if (isRecord(call)) most = Math.max(most, marks(call.id))
  return most
}

/** A chat message with `map` applied to the ids of the calls it makes or answers. */
function mapMessageCalls(message: unknown, map: (id: unknown) => unknown): unknown {
  if (!isRecord(message)) return message
  let next = message
  if ("tool_call_id" in message) {
    const id = map(message.tool_call_id)
    if (id !== message.tool_call_id) next = { ...next, tool_call_id: id }
  }
  const calls = arrayField(message, "tool_calls")
  const mapped = mapChanged(calls, (call) => {
    if (!isRecord(call) || !("id" in call)) return call
    const id = map(call.id)
    return id === call.id ? call : { ...call, id }
  })
  return mapped === calls ? next : { ...next, tool_calls: mapped }
}

/** Chat: the ids in `messages[].tool_calls[].id` and `messages[].tool_call_id`. */
export function chatMapHistoryCalls(body: JsonObject, map: (id: unknown) => unknown): JsonObject {
  const messages = arrayField(body, "messages")
  const mapped = mapChanged(messages, (message) => mapMessageCalls(message, map))
  return mapped === messages ? body : { ...body, messages: mapped }
}

/** Whether a message or input item is the user's (it starts a turn). */
export const isUserMessage = (message: unknown): boolean => isRecord(message) && message.role === "user"

/** The message that starts a chat request's turn: its last user message. */
export function chatTurnStart(body: JsonObject): unknown {
  return arrayField(body, "messages").findLast(isUserMessage)
}

/** The request of a chat completions call. */
export function chatRequest(body: JsonObject, marks: CallMarks): TurnRequest {
  return {
    tools: chatToolNames(body),
    toolChoice: openAiToolChoice(body.tool_choice),
    unsupported: typeof body.n === "number" && body.n > 1 ? "multiple-choices" : undefined,
    model: typeof body.model === "string" ? body.model : undefined,
    recoveriesBefore: turnRecoveries(arrayField(body, "messages"), {
      startsTurn: isUserMessage,
      recoveries: (message) => chatMessageRecoveries(message, marks),
    }),
  }
}

/** A system/developer message's content with `merge` applied: a string, or a list of parts (the instruction joins as a text part). */
function mergeContent(content: unknown, merge: (text: string) => string): unknown {
  if (typeof content === "string") return merge(content)
  if (Array.isArray(content)) return [...content, { type: "text", text: merge("") }]
  return merge("")
}

/** Chat: the leading system or developer message of `messages`. */
const chatOperations: PromptOperations<JsonObject> = {
  mergeSystem(body, merge) {
    const [first, ...rest] = arrayField(body, "messages")
    if (!isRecord(first) || (first.role !== "system" && first.role !== "developer")) return undefined
    return { ...body, messages: [{ ...first, content: mergeContent(first.content, merge) }, ...rest] }
  },
  prependSystem: (body, text) => ({
    ...body,
    messages: [{ role: "system", content: text }, ...arrayField(body, "messages")],
  }),
  appendUser: (body, text) => ({
    ...body,
    messages: [...arrayField(body, "messages"), { role: "user", content: text }],
  }),
}

/**
 * The chat retry body: `body` with the instruction placed in `messages` by recovery's
 * `placeInstruction` (the original array and its messages are not mutated).
 */
export function chatRetryBody(
  body: JsonObject,
  instruction: string,
  placement: "system" | "user",
): JsonObject {
  return placeInstruction(body, instruction, placement, chatOperations)
}
