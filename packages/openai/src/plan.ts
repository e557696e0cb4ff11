/**
 * What one request tells recovery's `planTurn`: the offered tools, the tool choice, the
 * framework's own reasons recovery cannot apply, and the recoveries the turn's history shows.
 * The rules themselves (skip `no-tools`, `tool-choice-none`, the per-turn budget) live in
 * `@tool-rescue/recovery`. This API's own reasons:
 * - chat `n > 1`: several choices cannot be spliced into one retry;
 * - Responses `background: true`: the response is polled, not returned;
 * - Responses `conversation`: the server adds the malformed output to the conversation, so a
 *   retry could not leave it out.
 */
import { type TurnRequest, turnRecoveries } from "@tool-rescue/recovery/adapter"
import { type RecoveredCalls, type TurnKey, turnKey } from "./turn-mark.ts"

type Body = Readonly<Record<string, unknown>>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

function nameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === "string" && value.name.length > 0 ? value.name : undefined
}

/** Function and custom tool names of a chat request (`tools[].function.name`, `tools[].custom.name`). */
export function chatToolNames(body: Body): string[] {
  const names: string[] = []
  if (!Array.isArray(body.tools)) return names
  for (const tool of body.tools) {
    if (!isRecord(tool)) continue
    const name = tool.type === "custom" ? nameOf(tool.custom) : nameOf(tool.function)
    if (name !== undefined && !names.includes(name)) names.push(name)
  }
  return names
}

/** Function and custom tool names of a Responses request (`tools[].name` of those types). */
export function responsesToolNames(body: Body): string[] {
  const names: string[] = []
  if (!Array.isArray(body.tools)) return names
  for (const tool of body.tools) {
    if (!isRecord(tool) || (tool.type !== "function" && tool.type !== "custom")) continue
    const name = nameOf(tool)
    if (name !== undefined && !names.includes(name)) names.push(name)
  }
  return names
}

/** `tool_choice` by kind: `"none"`, `"auto"`, `"required"`, or a named tool (an object). */
function toolChoiceOf(choice: unknown): TurnRequest["toolChoice"] {
  if (choice === "none" || choice === "auto" || choice === "required") return choice
  return isRecord(choice) ? "tool" : undefined
}

/** A chat message of the turn: the largest mark of the calls it makes or answers. */
function chatMessageRecoveries(message: unknown, calls: RecoveredCalls, turn: TurnKey): number {
  if (!isRecord(message)) return 0
  let most = calls.recoveries(message.tool_call_id, turn)
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls)
      if (isRecord(call)) most = Math.max(most, calls.recoveries(call.id, turn))
  }
  return most
}

const isUser = (message: unknown): boolean => isRecord(message) && message.role === "user"

function chatMessages(body: Body): readonly unknown[] {
  return Array.isArray(body.messages) ? (body.messages as readonly unknown[]) : []
}

/** The turn of a chat request: its last user message. */
export function chatTurn(body: Body): TurnKey {
  return turnKey(chatMessages(body).findLast(isUser))
}

/** The turn of a Responses request: its last user input item, or a string input. */
export function responsesTurn(body: Body): TurnKey {
  if (typeof body.input === "string") return turnKey(body.input)
  return turnKey(Array.isArray(body.input) ? (body.input as readonly unknown[]).findLast(isUser) : undefined)
}

/** The request of a chat completions call. */
export function chatRequest(body: Body, calls: RecoveredCalls): TurnRequest {
  const messages = chatMessages(body)
  const turn = chatTurn(body)
  return {
    tools: chatToolNames(body),
    toolChoice: toolChoiceOf(body.tool_choice),
    unsupported: typeof body.n === "number" && body.n > 1 ? "multiple-choices" : undefined,
    recoveriesBefore: turnRecoveries(messages, {
      startsTurn: isUser,
      recoveries: (message) => chatMessageRecoveries(message, calls, turn),
    }),
  }
}

/** The request of a Responses call. */
export function responsesRequest(body: Body, calls: RecoveredCalls): TurnRequest {
  const input = Array.isArray(body.input) ? (body.input as readonly unknown[]) : []
  const turn = responsesTurn(body)
  const unsupported =
    body.background === true
      ? "background"
      : body.conversation !== undefined && body.conversation !== null
        ? "conversation"
        : undefined
  return {
    tools: responsesToolNames(body),
    toolChoice: toolChoiceOf(body.tool_choice),
    unsupported,
    // A plain string input is a new user message: a new turn.
    recoveriesBefore: turnRecoveries(input, {
      startsTurn: isUser,
      recoveries: (item) => (isRecord(item) ? calls.recoveries(item.call_id, turn) : 0),
    }),
  }
}
