/**
 * A {@link ReplayReply} resolved for one request: text split into deltas, ids assigned, usage and
 * finish reason filled in. The chat and Responses renderers both start from this.
 */
import type { ReplayFinishReason, ReplayReply, ReplayRequestBody } from "./replay-script.ts"

/** A tool call with its argument deltas. */
export interface ResolvedToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
  readonly deltas: readonly string[]
}

/** What both renderers consume. */
export interface ResolvedReply {
  /** The request's position among scripted requests, used in ids. */
  readonly turn: number
  readonly model: string
  readonly created: number
  readonly content: string | undefined
  readonly contentDeltas: readonly string[]
  readonly reasoning: string | undefined
  readonly reasoningDeltas: readonly string[]
  readonly reasoningField: "reasoning_content" | "reasoning"
  readonly toolCalls: readonly ResolvedToolCall[]
  readonly finishReason: ReplayFinishReason
  readonly usage: { readonly input: number; readonly output: number; readonly reasoning: number }
}

/**
 * Splits `text` into deltas of `sizes` UTF-16 units, cycling through `sizes`. Sizes below 1 count
 * as 1 so the split always terminates; an empty text gives no deltas.
 */
export function splitText(text: string, sizes: number | readonly number[] | undefined): string[] {
  if (text.length === 0) return []
  const cycle = sizes === undefined ? [text.length] : typeof sizes === "number" ? [sizes] : sizes
  if (cycle.length === 0) return [text]
  const deltas: string[] = []
  let at = 0
  let i = 0
  while (at < text.length) {
    const size = Math.max(1, Math.floor(cycle[i % cycle.length] ?? text.length))
    deltas.push(text.slice(at, at + size))
    at += size
    i++
  }
  return deltas
}

function deltasOf(
  value: string | readonly string[] | undefined,
  sizes: number | readonly number[] | undefined,
): { text: string | undefined; deltas: readonly string[] } {
  if (value === undefined) return { text: undefined, deltas: [] }
  if (typeof value === "string") return { text: value, deltas: splitText(value, sizes) }
  return { text: value.join(""), deltas: value }
}

/** Resolves a reply for one request (ids derive from `turn`, so they are stable per script). */
export function resolveReply(reply: ReplayReply, body: ReplayRequestBody, turn: number): ResolvedReply {
  const content = deltasOf(reply.content, reply.chunkSize)
  const reasoning = deltasOf(reply.reasoning, reply.chunkSize)
  const toolCalls = (reply.toolCalls ?? []).map((call, index): ResolvedToolCall => {
    const args = deltasOf(call.arguments, reply.chunkSize)
    return {
      id: call.id ?? `call_${turn}_${index}`,
      name: call.name,
      arguments: args.text ?? "",
      deltas: args.deltas,
    }
  })
  const outputChars =
    (content.text?.length ?? 0) +
    (reasoning.text?.length ?? 0) +
    toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0)
  const inputChars = JSON.stringify(body.messages ?? body.input ?? "").length
  return {
    turn,
    model: typeof body.model === "string" ? body.model : "replay-model",
    created: Math.floor(Date.now() / 1000),
    content: content.text,
    contentDeltas: content.deltas,
    reasoning: reasoning.text,
    reasoningDeltas: reasoning.deltas,
    reasoningField: reply.reasoningField ?? "reasoning_content",
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    usage: {
      input: reply.usage?.inputTokens ?? Math.ceil(inputChars / 4),
      output: reply.usage?.outputTokens ?? Math.ceil(outputChars / 4),
      reasoning: reply.usage?.reasoningTokens ?? 0,
    },
  }
}

/** One server-sent event. `delta` marks the events that carry generated text (they count for delays and interrupts). */
export interface SseFrame {
  /** The `event:` field, when the API names its events (Responses). */
  readonly event?: string
  /** The `data:` payload: JSON text, or `[DONE]`. */
  readonly data: string
  readonly delta: boolean
}
