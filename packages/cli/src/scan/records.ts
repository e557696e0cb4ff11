/**
 * What a recorded JSON value is, beyond the protocols' own shapes (which are
 * `@tool-rescue/wire`'s: chat chunks and completions, Responses objects and events): the
 * recording formats `scan` understands — requests and their tools, assistant messages, ids —
 * as plain type guards and field readers over `unknown` (recorded files come from many servers
 * and loggers; nothing is assumed beyond what is checked).
 */

import { isRecord, type JsonObject } from "@tool-rescue/wire"

/**
 * Tool names from a `tools` array of a request or response: strings, Chat Completions
 * `{ type: "function", function: { name } }`, Responses `{ type: "function", name }`, or any
 * `{ name }`. Undefined when `tools` is not an array (no tools recorded).
 */
export function toolNames(tools: unknown): string[] | undefined {
  if (!Array.isArray(tools)) return undefined
  const names: string[] = []
  for (const tool of tools) {
    if (typeof tool === "string") names.push(tool)
    else if (isRecord(tool)) {
      const fn = tool.function
      const name = isRecord(fn) && typeof fn.name === "string" ? fn.name : tool.name
      if (typeof name === "string") names.push(name)
    }
  }
  return names
}

/** The offered tools a request records (`tools`, or the legacy `functions`). */
export function requestTools(request: JsonObject): string[] | undefined {
  return toolNames(request.tools) ?? toolNames(request.functions)
}

/** A chat or Responses request (it has what is sent, and nothing that is received). */
export function isRequest(value: JsonObject): boolean {
  if (value.choices !== undefined || value.output !== undefined) return false
  return Array.isArray(value.messages) || (value.input !== undefined && typeof value.model === "string")
}

/** An assistant message, e.g. from a conversation log. */
export function isAssistantMessage(value: JsonObject): boolean {
  return value.role === "assistant"
}

/** A short label for the record's id, when it has one. */
export function idOf(value: JsonObject): string | undefined {
  for (const key of ["id", "custom_id"]) {
    const id = value[key]
    if (typeof id === "string" && id.length > 0) return id
    if (typeof id === "number") return String(id)
  }
  return undefined
}
