import type { RecoveryOptions } from "@tool-rescue/recovery"

/**
 * Options of {@link withToolCallRecovery} and {@link toolCallRecoveryMiddleware}: recovery's
 * shared options, with the same names and meaning as in every other adapter (`persistFailed`,
 * `onEvent`, `maxRecoveries`, `instructionPlacement`, `instruction`, `evidence`, `reasoning`,
 * `formats`, `maxHoldChars`).
 *
 * `instructionPlacement: "system"` (default) merges a retry's instruction into the leading
 * `SystemMessage` (or inserts one first); `"user"` appends a `HumanMessage`.
 *
 * @example
 * ```ts
 * import type { ToolCallRecoveryOptions } from "@tool-rescue/langchain"
 *
 * const options: ToolCallRecoveryOptions = {
 *   maxRecoveries: 1,
 *   onEvent: (event) => console.debug("tool-rescue", event.type),
 * }
 * ```
 */
export type ToolCallRecoveryOptions = RecoveryOptions
