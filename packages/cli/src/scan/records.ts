/**
 * What a recorded JSON value is: the shapes `scan` understands, as plain type guards and field
 * readers over `unknown` (recorded files come from many servers and loggers; nothing is
 * assumed beyond what is checked).
 */

import { reasoningField } from "@tool-rescue/recovery/adapter"

/** A plain JSON object. */
export type JsonObject = { readonly [key: string]: unknown }

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

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
    else if (isObject(tool)) {
      const fn = tool.function
      const name = isObject(fn) && typeof fn.name === "string" ? fn.name : tool.name
      if (typeof name === "string") names.push(name)
    }
  }
  return names
}

/** The offered tools a request records (`tools`, or the legacy `functions`). */
export function requestTools(request: JsonObject): string[] | undefined {
  return toolNames(request.tools) ?? toolNames(request.functions)
}

/** Text of a message `content`: a string, or an array of `{ type: "text" | "output_text", text }` parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const parts: string[] = []
  for (const part of content) {
    if (typeof part === "string") parts.push(part)
    else if (isObject(part) && typeof part.text === "string" && part.type !== "refusal") parts.push(part.text)
  }
  return parts.join("")
}

/** Reasoning text a chat message or delta carries, read as the adapters read it (recovery's `reasoningField`). */
export function reasoningText(message: JsonObject): string {
  const field = reasoningField(message)
  return field === undefined ? "" : (message[field] as string)
}

/** A chat message or delta has a structured tool call. */
export function hasStructuredCall(message: JsonObject): boolean {
  const calls = message.tool_calls
  return (Array.isArray(calls) && calls.length > 0) || isObject(message.function_call)
}

/** `choices` of a chat completion or chunk. */
export function choicesOf(value: JsonObject): JsonObject[] {
  return Array.isArray(value.choices) ? value.choices.filter(isObject) : []
}

export function isChatChunk(value: JsonObject): boolean {
  if (value.object === "chat.completion.chunk") return true
  const choices = choicesOf(value)
  return choices.length > 0 && choices.every((choice) => isObject(choice.delta))
}

export function isChatCompletion(value: JsonObject): boolean {
  if (value.object === "chat.completion") return true
  const choices = choicesOf(value)
  return choices.length > 0 && choices.every((choice) => isObject(choice.message))
}

/** A Responses API response object (not a stream event). */
export function isResponsesResponse(value: JsonObject): boolean {
  return (
    value.object === "response" ||
    (Array.isArray(value.output) && typeof value.id === "string" && value.type === undefined)
  )
}

/** A Responses API stream event (`response.created`, `response.output_text.delta`, …). */
export function isResponsesEvent(value: JsonObject): value is JsonObject & { readonly type: string } {
  return typeof value.type === "string" && value.type.startsWith("response.")
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

/** The content and reasoning of a Responses `output` array, and whether it has a structured call. */
export function responsesOutput(output: unknown): {
  text: string[]
  reasoning: string[]
  structured: boolean
} {
  const text: string[] = []
  const reasoning: string[] = []
  let structured = false
  if (!Array.isArray(output)) return { text, reasoning, structured }
  for (const item of output) {
    if (!isObject(item)) continue
    switch (item.type) {
      case "message":
        text.push(contentText(item.content))
        break
      case "reasoning":
        reasoning.push(contentText(item.content))
        break
      case "function_call":
      case "custom_tool_call":
        structured = true
        break
      default:
        break
    }
  }
  return { text, reasoning, structured }
}

/** The function-call item types of the Responses API. */
export function isCallItem(item: unknown): boolean {
  return isObject(item) && (item.type === "function_call" || item.type === "custom_tool_call")
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
