/** What a scripted model needs to know about the CLIs' requests. */
import type { ReplayRequest } from "@tool-rescue/testing"

/**
 * The last input of a request is a tool result, in any of the three protocols the CLIs speak: a
 * `role: "tool"` message (Chat Completions: opencode, Qwen Code), a `function_call_output` item
 * (Responses: Codex), a `tool_result` block (Anthropic Messages: Claude Code). A scripted model
 * answers with text after one, and calls a tool before.
 *
 * @example
 * ```ts
 * startReplayServer({ script: (request) => (afterToolResult(request) ? { content: "done" } : call) })
 * ```
 */
export function afterToolResult(request: ReplayRequest): boolean {
  const body = request.body ?? {}
  const last = (
    Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : []
  ).at(-1) as Record<string, unknown> | undefined
  if (last === undefined) return false
  if (last.role === "tool" || last.type === "function_call_output") return true
  return (
    Array.isArray(last.content) &&
    last.content.some((part) => (part as { type?: unknown }).type === "tool_result")
  )
}

/**
 * The request offers tools: the agent's turn, not a side request (a session title, a summary).
 *
 * @example
 * ```ts
 * if (!offersTools(request)) return { content: "a title" }
 * ```
 */
export function offersTools(request: ReplayRequest): boolean {
  return Array.isArray(request.body?.tools) && request.body.tools.length > 0
}
