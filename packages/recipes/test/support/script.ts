/** The replay script both recipes run: a real Qwen3-Coder leak, the retry's call, the answer. */
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type { ReplayRequest, ReplayStep } from "@tool-rescue/testing"
import { corpus } from "@tool-rescue/testing/corpus"

const sample = corpus.find((s) => s.id === "L8")
if (sample === undefined) throw new Error("no corpus sample L8")

/** The leak (vllm-project/vllm#22975): prose, then a Qwen3-Coder call to GrepTool written as text. */
export const LEAK: { readonly text: string; readonly safePrefix: string } = {
  text: sample.text,
  safePrefix: sample.text.slice(0, sample.text.indexOf("<tool_call>")),
}

/** The model's final answer after the tool result. */
export const answer = "BaseService is defined in services/base.py."

function lastRole(request: ReplayRequest): string | undefined {
  const messages = request.body?.messages
  if (messages !== undefined) return messages.at(-1)?.role
  // Responses API input items.
  const input = request.body?.input
  const last: unknown = Array.isArray(input) ? input.at(-1) : undefined
  return typeof last === "object" &&
    last !== null &&
    (last as { type?: string }).type === "function_call_output"
    ? "tool"
    : undefined
}

/** The request is a retry: it carries the host instruction's mark. */
export function retrying(request: ReplayRequest): boolean {
  return isRetryRequest(request.body)
}

/** Leaks on a fresh question, calls the tool when asked to retry, answers after the tool result. */
export function agentScript(
  options: { leakAfterTool?: boolean } = {},
): (request: ReplayRequest) => ReplayStep {
  return (request) => {
    if (lastRole(request) === "tool")
      return options.leakAfterTool ? { content: LEAK.text } : { content: answer }
    if (retrying(request))
      return { toolCalls: [{ name: "GrepTool", arguments: '{"pattern":"class BaseService"}' }] }
    return { content: LEAK.text, chunkSize: 7 }
  }
}
