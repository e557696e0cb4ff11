import type { ToolCallError } from "@tool-rescue/recovery"
import { classifyToolCall, toolCallError } from "@tool-rescue/recovery/adapter"

/** A structured call as the wire carries it: the tool name and the argument text, unchanged. */
export interface WireCall {
  readonly name: string
  readonly params: string
}

/**
 * The `tool_call_errors` of a result under `unknownToolCalls: "return"`: one error per call that
 * names a tool not offered, in call order (`undefined` entries, items that are no call, are
 * skipped).
 */
export function unknownCallErrors(
  calls: Iterable<WireCall | undefined>,
  tools: readonly string[],
): ToolCallError[] {
  const errors: ToolCallError[] = []
  for (const call of calls) {
    if (call !== undefined && classifyToolCall(call.name, tools) === "unknown") {
      errors.push(toolCallError(call.name, call.params, tools))
    }
  }
  return errors
}
