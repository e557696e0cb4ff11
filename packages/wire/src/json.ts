/**
 * Guards and readers for the JSON the three protocols carry. Every reader in this package uses
 * these, so they agree on the edge cases (an array is not an object, `null` has no kind).
 */

/** A JSON object, as parsed: fields read through the guards below. */
export type JsonObject = Readonly<Record<string, unknown>>

/**
 * Whether `value` is a plain JSON object (not `null`, not an array).
 *
 * @example
 * ```ts
 * import { isRecord } from "@tool-rescue/wire"
 *
 * isRecord({ type: "message" }) // true
 * isRecord([1, 2]) // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/**
 * A JSON value's kind, as a request field's type is checked.
 *
 * @example
 * ```ts
 * import type { JsonKind } from "@tool-rescue/wire"
 *
 * const kinds: readonly JsonKind[] = ["string", "object"] // `tool_choice`
 * ```
 */
export type JsonKind = "string" | "number" | "boolean" | "array" | "object"

/**
 * The kind of a JSON value (`undefined` for `null` and for what JSON cannot hold).
 *
 * @example
 * ```ts
 * import { jsonKind } from "@tool-rescue/wire"
 *
 * jsonKind([]) // "array"
 * jsonKind(null) // undefined
 * ```
 */
export function jsonKind(value: unknown): JsonKind | undefined {
  if (value === null) return undefined
  if (Array.isArray(value)) return "array"
  const kind = typeof value
  return kind === "string" || kind === "number" || kind === "boolean" || kind === "object" ? kind : undefined
}

/**
 * The `type` of a JSON event (Responses and Anthropic Messages name their events by it).
 *
 * @example
 * ```ts
 * import { eventType } from "@tool-rescue/wire"
 *
 * eventType({ type: "message_stop" }) // "message_stop"
 * ```
 */
export function eventType(event: unknown): string | undefined {
  return isRecord(event) && typeof event.type === "string" ? event.type : undefined
}

/**
 * An array field's items, or none (the field is missing, or not an array, or `value` is no object).
 *
 * @example
 * ```ts
 * import { arrayField } from "@tool-rescue/wire"
 *
 * arrayField({ messages: [{ role: "user", content: "hi" }] }, "messages").length // 1
 * arrayField({ messages: "hi" }, "messages") // []
 * ```
 */
export function arrayField(value: unknown, field: string): readonly unknown[] {
  if (!isRecord(value)) return []
  const found = value[field]
  return Array.isArray(found) ? found : []
}

/**
 * Text of a message `content`: a string, or an array of strings and `{ type, text }` parts
 * (`text`, `output_text`, `reasoning_text`, …; a `refusal` is not answer text).
 *
 * @example
 * ```ts
 * import { contentText } from "@tool-rescue/wire"
 *
 * contentText([{ type: "output_text", text: "Hi " }, { type: "output_text", text: "there" }]) // "Hi there"
 * ```
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const parts: string[] = []
  for (const part of content) {
    if (typeof part === "string") parts.push(part)
    else if (isRecord(part) && typeof part.text === "string" && part.type !== "refusal") parts.push(part.text)
  }
  return parts.join("")
}

/**
 * `items` with `map` applied to each, or `items` itself when `map` changed none (so a request
 * with nothing to rewrite stays the same object, and its bytes can go on as they came).
 *
 * @example
 * ```ts
 * import { mapChanged } from "./json.ts"
 *
 * const items = [1, 2]
 * mapChanged(items, (n) => n) === items // true
 * ```
 */
export function mapChanged<T>(items: readonly T[], map: (item: T) => T): readonly T[] {
  let out: T[] | undefined
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const next = map(item)
    if (next !== item) out ??= items.slice(0, i)
    out?.push(next)
  }
  return out ?? items
}
