/**
 * Non-streaming chat completions ↔ recovery's normalized parts. A completion becomes its
 * reasoning, its content, one part per structured tool call and a finish part; the result is
 * the last attempt's completion with the text recovery released for it. Nothing was shown in a
 * non-streaming call, so a malformed attempt, prose included, is absent from the result (and so
 * from `runTools`' `messages`); its usage is added to the result's.
 */
import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { reasoningField, sumUsage } from "@tool-rescue/recovery/adapter"
import { copyResult } from "./copy-result.ts"
import { arrayField, isRecord, type JsonObject } from "./json.ts"
import { unknownCallErrors, type WireCall } from "./unknown-call-errors.ts"
import type { SplicerSettings } from "./wire-protocol.ts"

/**
 * A chat completion, as far as this module reads it (the `openai` client's `ChatCompletion` is
 * one; other fields are carried as they came).
 */
export interface ChatCompletion {
  readonly choices: readonly ChatCompletionChoice[]
  readonly usage?: unknown
  readonly [field: string]: unknown
}

/** One choice of a {@link ChatCompletion}. */
export interface ChatCompletionChoice {
  readonly message?: unknown
  readonly finish_reason?: string | null | undefined
  readonly [field: string]: unknown
}

type Message = JsonObject

function messageOf(completion: ChatCompletion): Message | undefined {
  const message = completion.choices?.[0]?.message
  return isRecord(message) ? message : undefined
}

/** A field of a call's `function` (or, for a custom tool call, of its `custom`). */
function callField(call: JsonObject, fn: string, custom: string): unknown {
  const f = call.function
  const c = call.custom
  const value = isRecord(f) ? f[fn] : undefined
  return value ?? (isRecord(c) ? c[custom] : undefined)
}

function callOf(call: unknown): WireCall | undefined {
  if (!isRecord(call)) return undefined
  const name = callField(call, "name", "name")
  const params = callField(call, "arguments", "input")
  if (typeof name !== "string") return undefined
  return { name, params: typeof params === "string" ? params : "" }
}

/** The normalized parts of one completion. */
export function completionParts(completion: ChatCompletion): NormalizedPart<ChatCompletion>[] {
  const parts: NormalizedPart<ChatCompletion>[] = []
  const message = messageOf(completion)
  const key = reasoningField(message)
  const reasoning = key === undefined ? "" : String(message?.[key])
  if (reasoning.length > 0) parts.push({ type: "reasoning", text: reasoning, raw: completion })
  const content = typeof message?.content === "string" ? message.content : ""
  if (content.length > 0) parts.push({ type: "text", text: content, raw: completion })
  for (const call of arrayField(message, "tool_calls")) {
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
  return arrayField(messageOf(completion), "tool_calls").flatMap((call) => {
    const id = isRecord(call) ? call.id : undefined
    return typeof id === "string" && id.length > 0 ? [id] : []
  })
}

/**
 * Reads recovery's output for a non-streaming call and builds the completion to return: the
 * final attempt's completion itself when its visible text is unchanged, else a copy with the
 * message's content and reasoning replaced.
 */
export async function completionResult(
  output: AsyncIterable<OutputPart<ChatCompletion>>,
  options: SplicerSettings,
): Promise<ChatCompletion> {
  const text: string[] = []
  const reasoning: string[] = []
  let final: ChatCompletion | undefined
  let spent: unknown
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
      const next: Record<string, unknown> = { ...message }
      if (contentChanged) next.content = content.length === 0 && message.content === null ? null : content
      if (reasoningChanged) next[key] = thought
      result = copyResult(result, {
        choices: [{ ...final.choices[0]!, message: next }, ...final.choices.slice(1)],
      })
    }
  }
  if (options.returnToolCallErrors) {
    const errors = unknownCallErrors(arrayField(messageOf(result), "tool_calls").map(callOf), options.tools)
    result = copyResult(result, { tool_call_errors: errors })
  }
  return result
}
