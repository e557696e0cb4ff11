import type { RecoveryOptions } from "@tool-rescue/recovery"

/**
 * Options of `toolCallRecoveryMiddleware`: the recovery options shared by every
 * tool-rescue adapter (policy, `maxRecoveries`, instruction and its placement, hooks, events).
 *
 * @example
 * ```ts
 * import type { ToolCallRecoveryMiddlewareOptions } from "@tool-rescue/ai-sdk"
 *
 * const options: ToolCallRecoveryMiddlewareOptions = {
 *   instructionPlacement: "user",
 *   onEvent: (event) => console.log("tool-rescue", event.type),
 * }
 * ```
 */
export interface ToolCallRecoveryMiddlewareOptions extends RecoveryOptions {}
