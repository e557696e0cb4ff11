import { chatChoices, chatReasoningText, contentText, isRecord, type JsonObject } from "@tool-rescue/wire"
import type { Response } from "effect/ai"
import { metadataPart } from "./completion-parts.ts"
import { callFields, callParams, finishReason, usageOf } from "./response-fields.ts"

/** The block the stream is in: Effect's text and reasoning parts come as start, deltas, end. */
type Block = "none" | "text" | "reasoning"

interface PendingCall {
  readonly id: string
  name: string
  readonly args: string[]
}

/**
 * Reads the chunks of one streamed chat completion, in order, into Effect's stream parts.
 *
 * @example
 * ```ts
 * const reader = createChunkReader()
 * reader.read({ id: "c", model: "m", choices: [{ index: 0, delta: { content: "Hi" } }] })
 * // [{ type: "response-metadata", … }, { type: "text-start", id: "text-0" }, { type: "text-delta", id: "text-0", delta: "Hi" }]
 * reader.end() // [{ type: "text-end", id: "text-0" }, { type: "finish", reason: "unknown", usage: … }]
 * ```
 */
export interface ChunkReader {
  /** The parts of one chunk (an `{"error": …}` chunk is the caller's to report). */
  readonly read: (chunk: JsonObject) => Response.StreamPartEncoded[]
  /** The parts that close the stream at `data: [DONE]`: open blocks, pending calls, `finish`. */
  readonly end: () => Response.StreamPartEncoded[]
}

/**
 * Creates a {@link ChunkReader}. Text and reasoning (`reasoning_content` or `reasoning`) stream
 * as deltas in blocks; a tool call streams its arguments as `tool-params-*` parts and becomes a
 * `tool-call` when the choice finishes (or the stream ends), its arguments parsed (raw text when
 * they are not JSON). Usage is the last reported (with `stream_options.include_usage` it comes
 * in a chunk of its own after the finish).
 */
export function createChunkReader(): ChunkReader {
  let block: Block = "none"
  let blocks = 0
  let started = false
  let reason: Response.FinishReason = "unknown"
  let usage: unknown
  // Keyed by the chunk's `index`: the id comes only in a call's first delta.
  const calls = new Map<number, PendingCall>()

  const blockId = (): string => `${block}-${blocks}`

  /** Moves to `next`, closing the open block and opening the new one. */
  const enter = (next: Block, out: Response.StreamPartEncoded[]): void => {
    if (block === next) return
    switch (block) {
      case "none":
        break
      case "text":
        out.push({ type: "text-end", id: blockId() })
        break
      case "reasoning":
        out.push({ type: "reasoning-end", id: blockId() })
        break
      default:
        block satisfies never
    }
    if (block !== "none") blocks++
    block = next
    if (next === "text") out.push({ type: "text-start", id: blockId() })
    else if (next === "reasoning") out.push({ type: "reasoning-start", id: blockId() })
  }

  /** Ends the pending calls: their `tool-params-end` and `tool-call` parts. */
  const flushCalls = (out: Response.StreamPartEncoded[]): void => {
    for (const call of calls.values()) {
      out.push({ type: "tool-params-end", id: call.id })
      out.push({ type: "tool-call", id: call.id, name: call.name, params: callParams(call.args.join("")) })
    }
    calls.clear()
  }

  const read = (chunk: JsonObject): Response.StreamPartEncoded[] => {
    const out: Response.StreamPartEncoded[] = []
    if (!started) {
      started = true
      out.push(metadataPart(chunk))
    }
    if (chunk.usage != null) usage = chunk.usage
    const choice = chatChoices(chunk)[0]
    if (choice === undefined) return out
    const delta = isRecord(choice.delta) ? choice.delta : {}
    const thought = chatReasoningText(delta)
    if (thought.length > 0) {
      enter("reasoning", out)
      out.push({ type: "reasoning-delta", id: blockId(), delta: thought })
    }
    const text = contentText(delta.content)
    if (text.length > 0) {
      enter("text", out)
      out.push({ type: "text-delta", id: blockId(), delta: text })
    }
    callFields(delta).forEach((fields, i) => {
      const index = fields.index ?? i
      let call = calls.get(index)
      if (call === undefined) {
        enter("none", out)
        call = { id: fields.id ?? `call_${index}`, name: fields.name ?? "", args: [] }
        calls.set(index, call)
        out.push({ type: "tool-params-start", id: call.id, name: call.name })
      }
      // Some servers name the call after its first delta.
      if (call.name.length === 0 && fields.name !== undefined) call.name = fields.name
      if (fields.arguments.length > 0) {
        call.args.push(fields.arguments)
        out.push({ type: "tool-params-delta", id: call.id, delta: fields.arguments })
      }
    })
    if (choice.finish_reason != null) {
      reason = finishReason(choice.finish_reason)
      enter("none", out)
      flushCalls(out)
    }
    return out
  }

  const end = (): Response.StreamPartEncoded[] => {
    const out: Response.StreamPartEncoded[] = []
    if (!started) out.push({ type: "response-metadata" })
    enter("none", out)
    flushCalls(out)
    out.push({ type: "finish", reason, usage: usageOf(usage) })
    return out
  }

  return { read, end }
}
