/**
 * What an Anthropic Messages request tells recovery's `planTurn` (the client tools, `tool_choice`
 * by kind, the recoveries the turn's history shows), and the retry body: the instruction
 * appended to `system` (placement `"system"`) or a final user message (`"user"`).
 */
import { appendInstruction, type TurnRequest, turnRecoveries } from "@tool-rescue/recovery/adapter"
import { arrayField, isRecord, type JsonObject, mapChanged } from "./json.ts"
import type { CallMarks } from "./wire-protocol.ts"

/** Client tool names (`tools[].name` of tools without a server-tool `type`). */
export function messagesToolNames(body: JsonObject): string[] {
  const names: string[] = []
  for (const tool of arrayField(body, "tools")) {
    if (!isRecord(tool) || typeof tool.name !== "string" || tool.name.length === 0) continue
    // Server tools (`web_search_20250305`, `bash_20250124`, …) run on Anthropic's side.
    if (tool.type !== undefined && tool.type !== "custom") continue
    if (!names.includes(tool.name)) names.push(tool.name)
  }
  return names
}

/** The retry body: the instruction appended to `system` (placement `"system"`) or a final user message. */
export function messagesRetryBody(
  body: JsonObject,
  instruction: string,
  placement: "system" | "user",
): JsonObject {
  if (placement === "user") {
    return { ...body, messages: [...arrayField(body, "messages"), { role: "user", content: instruction }] }
  }
  const system = body.system
  if (Array.isArray(system)) return { ...body, system: [...system, { type: "text", text: instruction }] }
  return { ...body, system: appendInstruction(typeof system === "string" ? system : "", instruction) }
}

/** A user message that only carries tool results continues the turn; any other starts one. */
function startsTurn(message: unknown): boolean {
  if (!isRecord(message) || message.role !== "user") return false
  const blocks = arrayField(message, "content")
  return blocks.length === 0 || !blocks.every((block) => isRecord(block) && block.type === "tool_result")
}

/** The message that starts a Messages request's turn: its last user message that is not only tool results. */
export function messagesTurnStart(body: JsonObject): unknown {
  return arrayField(body, "messages").findLast(startsTurn)
}

/** The largest mark on the calls a message makes (`tool_use`) or answers (`tool_result`). */
function messageRecoveries(message: unknown, marks: CallMarks): number {
  let most = 0
  for (const block of arrayField(message, "content")) {
    if (!isRecord(block)) continue
    if (block.type === "tool_use") most = Math.max(most, marks(block.id))
    else if (block.type === "tool_result") most = Math.max(most, marks(block.tool_use_id))
  }
  return most
}

/** The id field of a block that makes a call (`tool_use`) or answers one (`tool_result`). */
function callIdField(block: Record<string, unknown>): "id" | "tool_use_id" | undefined {
  return block.type === "tool_use" ? "id" : block.type === "tool_result" ? "tool_use_id" : undefined
}

/** Messages: the ids in `tool_use.id` and `tool_result.tool_use_id` blocks of `messages[].content`. */
export function messagesMapHistoryCalls(body: JsonObject, map: (id: unknown) => unknown): JsonObject {
  const list = arrayField(body, "messages")
  const mapped = mapChanged(list, (message) => {
    if (!isRecord(message)) return message
    const blocks = arrayField(message, "content")
    const content = mapChanged(blocks, (block) => {
      const field = isRecord(block) ? callIdField(block) : undefined
      if (field === undefined || !isRecord(block)) return block
      const id = map(block[field])
      return id === block[field] ? block : { ...block, [field]: id }
    })
    return content === blocks ? message : { ...message, content }
  })
  return mapped === list ? body : { ...body, messages: mapped }
}

/**
 * What a Messages request tells recovery's `planTurn` (which holds the skip rules): the client
 * tools, `tool_choice` by kind, and the recoveries the turn's history shows.
 */
export function messagesRequest(body: JsonObject, marks: CallMarks): TurnRequest {
  const choice = body.tool_choice
  const kind = isRecord(choice) ? choice.type : undefined
  return {
    tools: messagesToolNames(body),
    toolChoice: kind === "none" ? "none" : kind === "any" ? "required" : kind === "tool" ? "tool" : "auto",
    model: typeof body.model === "string" ? body.model : undefined,
    recoveriesBefore: turnRecoveries(arrayField(body, "messages"), {
      startsTurn,
      recoveries: (message) => messageRecoveries(message, marks),
    }),
  }
}
