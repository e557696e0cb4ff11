import type { RecoveryOptions, UnknownToolCalls } from "@tool-rescue/recovery"

/**
 * Options of {@link withToolCallRecovery}: recovery's shared options (policy, `maxRecoveries`,
 * instruction text and placement, `persistFailed`, `onEvent`) plus `unknownToolCalls`.
 *
 * `instructionPlacement` decides where a retry's instruction goes: `"system"` (default) merges it
 * into the leading system/developer message of a chat request (or inserts one at index 0) and
 * appends it to `instructions` of a Responses request; `"user"` appends a user message (chat) or a
 * user input item (Responses).
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { withToolCallRecovery, type ToolCallRecoveryOptions } from "@tool-rescue/openai"
 *
 * const options: ToolCallRecoveryOptions = {
 *   maxRecoveries: 1,
 *   onEvent: (event) => console.debug("tool-rescue", event.type),
 * }
 * const client = withToolCallRecovery(new OpenAI({ baseURL: "http://127.0.0.1:8000/v1", apiKey: "local" }), options)
 * ```
 */
export interface ToolCallRecoveryOptions extends RecoveryOptions {
  /**
   * A structured tool call naming a tool that was not offered: `"error"` (default) leaves the
   * response exactly as the server sent it; `"return"` adds `tool_call_errors` to the result
   * (see {@link toolCallErrorMessages} / {@link toolCallErrorOutputs} for the answers to send back).
   * @defaultValue "error"
   */
  readonly unknownToolCalls?: UnknownToolCalls
}
