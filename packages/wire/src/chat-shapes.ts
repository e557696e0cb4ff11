/**
 * What a recorded Chat Completions value is, read from JSON that may come from any server or
 * logger (the CLI's `scan`): guards and readers over `unknown`, nothing assumed beyond what is
 * checked. Unlike the turn's mapping (`chat-chunk-parts.ts`), these read every choice.
 */
import { reasoningField } from "@tool-rescue/recovery/adapter"
import { isRecord, type JsonObject } from "./json.ts"

/**
 * `choices` of a chat completion or chunk (the ones that are objects).
 *
 * @example
 * ```ts
 * import { chatChoices } from "@tool-rescue/wire"
 *
 * chatChoices({ choices: [{ index: 0, delta: {} }, null] }).length // 1
 * ```
 */
export function chatChoices(value: JsonObject): JsonObject[] {
  return Array.isArray(value.choices) ? value.choices.filter(isRecord) : []
}

/**
 * A streamed chat completion chunk: `object: "chat.completion.chunk"`, or choices that all carry a `delta`.
 *
 * @example
 * ```ts
 * import { isChatChunk } from "@tool-rescue/wire"
 *
 * isChatChunk({ id: "c", choices: [{ index: 0, delta: { content: "Hi" } }] }) // true
 * ```
 */
export function isChatChunk(value: JsonObject): boolean {
  if (value.object === "chat.completion.chunk") return true
  const choices = chatChoices(value)
  return choices.length > 0 && choices.every((choice) => isRecord(choice.delta))
}

/**
 * A whole chat completion: `object: "chat.completion"`, or choices that all carry a `message`.
 *
 * @example
 * ```ts
 * import { isChatCompletion } from "@tool-rescue/wire"
 *
 * isChatCompletion({ choices: [{ index: 0, message: { role: "assistant", content: "Hi" } }] }) // true
 * ```
 */
export function isChatCompletion(value: JsonObject): boolean {
  if (value.object === "chat.completion") return true
  const choices = chatChoices(value)
  return choices.length > 0 && choices.every((choice) => isRecord(choice.message))
}

/**
 * Reasoning text a chat message or delta carries, read as the adapters read it (recovery's
 * `reasoningField`: `reasoning_content`, `reasoning` or `thinking`).
 *
 * @example
 * ```ts
 * import { chatReasoningText } from "@tool-rescue/wire"
 *
 * chatReasoningText({ role: "assistant", reasoning: "Let me think." }) // "Let me think."
 * ```
 */
export function chatReasoningText(message: JsonObject): string {
  const field = reasoningField(message)
  const text = field === undefined ? undefined : message[field]
  return typeof text === "string" ? text : ""
}

/**
 * A chat message or delta has a structured tool call (`tool_calls`, or the legacy `function_call`).
 *
 * @example
 * ```ts
 * import { hasChatToolCall } from "@tool-rescue/wire"
 *
 * hasChatToolCall({ role: "assistant", tool_calls: [{ id: "c", type: "function" }] }) // true
 * ```
 */
export function hasChatToolCall(message: JsonObject): boolean {
  const calls = message.tool_calls
  return (Array.isArray(calls) && calls.length > 0) || isRecord(message.function_call)
}
