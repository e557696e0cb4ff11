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

/** A string field, or `undefined` when the field holds anything else. */
export function stringField(value: unknown, field: string): string | undefined {
  if (!isRecord(value)) return undefined
  const found = value[field]
  return typeof found === "string" ? found : undefined
}

/** An array field's items, or none. */
export function arrayField(value: unknown, field: string): readonly unknown[] {
  if (!isRecord(value)) return []
  const found = value[field]
  return Array.isArray(found) ? found : []
}
