/**
 * Non-streaming chat completions ↔ recovery's normalized parts. A completion becomes its
 * reasoning, its content, one part per structured tool call and a finish part; the result is
 * the last attempt's completion with the text recovery released for it. Nothing was shown in a
 * non-streaming call, so a malformed attempt, prose included, is absent from the result (and so
 * from `runTools`' `messages`); its usage is added to the result's.
 */
import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { reasoningField, sumUsage } from "@tool-rescue/recovery/adapter"
import type { ChatCompletion } from "openai/resources/chat/completions"
import { copyResult } from "./copy-result.ts"
import { unknownCallErrors, type WireCall } from "./unknown-call-errors.ts"

type Message = Record<string, unknown>

function messageOf(completion: ChatCompletion): Message | undefined {
  return completion.choices?.[0]?.message as Message | undefined
}

function callOf(call: unknown): WireCall | undefined {
  if (typeof call !== "object" || call === null) return undefined
  const { function: fn, custom } = call as {
    function?: { name?: unknown; arguments?: unknown }
    custom?: { name?: unknown; input?: unknown }
  }
  const name = fn?.name ?? custom?.name
  const params = fn?.arguments ?? custom?.input
  if (typeof name !== "string") return undefined
  return { name, params: typeof params === "string" ? params : "" }
}

/** The normalized parts of one completion. */
export function completionParts(completion: ChatCompletion): NormalizedPart<ChatCompletion>[] {
  const parts: NormalizedPart<ChatCompletion>[] = []
  const message = messageOf(completion)
  const key = reasoningField(message)
  const reasoning = key === undefined ? "" : (message?.[key] as string)
  if (reasoning.length > 0) parts.push({ type: "reasoning", text: reasoning, raw: completion })
  const content = typeof message?.content === "string" ? message.content : ""
  if (content.length > 0) parts.push({ type: "text", text: content, raw: completion })
  const calls = Array.isArray(message?.tool_calls) ? (message.tool_calls as unknown[]) : []
  for (const call of calls) {
    const parsed = callOf(call)
    if (parsed !== undefined)
      parts.push({ type: "tool-call", toolName: parsed.name, params: parsed.params, raw: completion })
  }
  // The output limit: markup still open then is a call cut off (`truncated-call`).
  const truncated = completion.choices?.[0]?.finish_reason === "length"
  parts.push(truncated ? { type: "finish", raw: completion, truncated } : { type: "finish", raw: completion })
  return parts
}

/** The ids of a completion's tool calls. */
export function completionCallIds(completion: ChatCompletion): string[] {
  const calls = messageOf(completion)?.tool_calls
  if (!Array.isArray(calls)) return []
  return calls.flatMap((call: unknown) => {
    const id = (call as { id?: unknown } | null)?.id
    return typeof id === "string" && id.length > 0 ? [id] : []
  })
}

/** Options of {@link completionResult}. */
export interface CompletionResultOptions {
  readonly tools: readonly string[]
  readonly returnToolCallErrors: boolean
}

/**
 * Reads recovery's output for a non-streaming call and builds the completion to return: the
 * final attempt's completion itself when its visible text is unchanged, else a copy with the
 * message's content and reasoning replaced.
 */
export async function completionResult(
  output: AsyncIterable<OutputPart<ChatCompletion>>,
  options: CompletionResultOptions,
): Promise<ChatCompletion> {
  const text: string[] = []
  const reasoning: string[] = []
  let final: ChatCompletion | undefined
  let spent: ChatCompletion["usage"]
  for await (const part of output) {
    if (part.type === "text") text.push(part.text)
    else if (part.type === "reasoning") reasoning.push(part.text)
    else if (part.type === "finish") final = part.raw
    else if (part.type === "attempt-start") {
      // The malformed attempt is dropped whole; only its usage counts.
      text.length = 0
      reasoning.length = 0
      for (const abandoned of part.discarded)
        if (abandoned.usage != null) spent = sumUsage(spent, abandoned.usage)
    }
  }
  if (final === undefined) throw new Error("tool-rescue: the recovered turn ended without a completion")
  let result = final
  if (spent !== undefined) {
    result = copyResult(final, { usage: final.usage == null ? spent : sumUsage(spent, final.usage) })
  }
  const message = messageOf(final)
  if (message !== undefined) {
    const content = text.join("")
    const key = reasoningField(message) ?? "reasoning_content"
    const thought = reasoning.join("")
    const contentChanged = content !== (typeof message.content === "string" ? message.content : "")
    const reasoningChanged = thought !== (typeof message[key] === "string" ? message[key] : "")
    if (contentChanged || reasoningChanged) {
      const next: Message = { ...message }
      if (contentChanged) next.content = content.length === 0 && message.content === null ? null : content
      if (reasoningChanged) next[key] = thought
      result = copyResult(result, {
        choices: [{ ...final.choices[0]!, message: next }, ...final.choices.slice(1)],
      })
    }
  }
  if (options.returnToolCallErrors) {
    const calls = messageOf(result)?.tool_calls
    const errors = unknownCallErrors((Array.isArray(calls) ? calls : []).map(callOf), options.tools)
    result = copyResult(result, { tool_call_errors: errors })
  }
  return result
}
