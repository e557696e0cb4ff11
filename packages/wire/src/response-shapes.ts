/**
 * What a recorded Responses value is, read from JSON that may come from any server or logger
 * (the CLI's `scan`): guards and readers over `unknown`, nothing assumed beyond what is checked.
 */
import { contentText, isRecord, type JsonObject } from "./json.ts"

/**
 * A Responses response object (not a stream event): `object: "response"`, or an `output` array
 * and an `id` with no event `type`.
 *
 * @example
 * ```ts
 * import { isResponseObject } from "@tool-rescue/wire"
 *
 * isResponseObject({ id: "resp_1", object: "response", output: [] }) // true
 * ```
 */
export function isResponseObject(value: JsonObject): boolean {
  return (
    value.object === "response" ||
    (Array.isArray(value.output) && typeof value.id === "string" && value.type === undefined)
  )
}

/**
 * A Responses stream event (`response.created`, `response.output_text.delta`, …).
 *
 * @example
 * ```ts
 * import { isResponseEvent } from "@tool-rescue/wire"
 *
 * isResponseEvent({ type: "response.output_text.delta", delta: "Hi" }) // true
 * ```
 */
export function isResponseEvent(value: JsonObject): value is JsonObject & { readonly type: string } {
  return typeof value.type === "string" && value.type.startsWith("response.")
}

/**
 * A function or custom tool call item of a Responses `output` (or `input`).
 *
 * @example
 * ```ts
 * import { isResponseCallItem } from "@tool-rescue/wire"
 *
 * isResponseCallItem({ type: "function_call", call_id: "c", name: "read_file", arguments: "{}" }) // true
 * ```
 */
export function isResponseCallItem(item: unknown): boolean {
  return isRecord(item) && (item.type === "function_call" || item.type === "custom_tool_call")
}

/**
 * The answer text and reasoning of a Responses `output` array (one entry per message or
 * reasoning item), and whether it has a structured call.
 *
 * @example
 * ```ts
 * import { readResponseOutput } from "@tool-rescue/wire"
 *
 * readResponseOutput([{ type: "message", content: [{ type: "output_text", text: "Hi" }] }])
 * // { text: ["Hi"], reasoning: [], structured: false }
 * ```
 */
export function readResponseOutput(output: unknown): {
  text: string[]
  reasoning: string[]
  structured: boolean
} {
  const text: string[] = []
  const reasoning: string[] = []
  let structured = false
  if (!Array.isArray(output)) return { text, reasoning, structured }
  for (const item of output) {
    if (!isRecord(item)) continue
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

/**
 * What one recorded Responses stream event says, for a reader that only needs the answer:
 * - `start`: `response.created` (a new response);
 * - `text` / `reasoning`: an `output_text` / `reasoning_text` delta (a refusal is not answer text);
 * - `call`: a structured call's item or argument delta;
 * - `end`: the lifecycle end (`completed`, `incomplete`, `failed`), with its response when it
 *   carries one;
 * - `other`: anything else.
 */
export type ResponseEventReading =
  | { readonly kind: "start" }
  | { readonly kind: "text" | "reasoning"; readonly text: string }
  | { readonly kind: "call" }
  | { readonly kind: "end"; readonly response: JsonObject | undefined }
  | { readonly kind: "other" }

/**
 * Reads one recorded Responses stream event ({@link ResponseEventReading}).
 *
 * @example
 * ```ts
 * import { readResponseEvent } from "@tool-rescue/wire"
 *
 * readResponseEvent({ type: "response.output_text.delta", item_id: "m", delta: "Hi" })
 * // { kind: "text", text: "Hi" }
 * ```
 */
export function readResponseEvent(event: JsonObject & { readonly type: string }): ResponseEventReading {
  switch (event.type) {
    case "response.created":
      return { kind: "start" }
    case "response.output_text.delta":
    case "response.reasoning_text.delta":
      if (typeof event.delta !== "string") return { kind: "other" }
      return { kind: event.type === "response.output_text.delta" ? "text" : "reasoning", text: event.delta }
    case "response.function_call_arguments.delta":
    case "response.custom_tool_call_input.delta":
      return { kind: "call" }
    case "response.output_item.added":
    case "response.output_item.done":
      return isResponseCallItem(event.item) ? { kind: "call" } : { kind: "other" }
    case "response.completed":
    case "response.incomplete":
    case "response.failed":
      return { kind: "end", response: isRecord(event.response) ? event.response : undefined }
    default:
      return { kind: "other" }
  }
}
