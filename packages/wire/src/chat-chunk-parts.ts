/**
 * Streamed chat completions ↔ recovery's normalized parts.
 *
 * Forward ({@link chunkParts}): a chunk becomes one part when it carries one kind of thing (the
 * usual case: one content delta, one reasoning delta, one tool-call header, the finish chunk), so
 * a clean stream maps back to the very same chunk objects. A chunk that mixes text with anything
 * else is split, text first; only the first part of a split keeps the role.
 *
 * Back ({@link createChatSplicer}): a part whose text is unchanged yields its chunk as is; a
 * re-cut text part (markup withheld, held text released) yields a copy of its chunk with only
 * that text. After a retry starts, chunks get the first attempt's `id` (the SDK's
 * `fromReadableStream` reads an id change as a new completion) and lose the repeated `role`.
 */
import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { type ReasoningField, reasoningField, sumUsage } from "@tool-rescue/recovery/adapter"
import { isRecord, type JsonObject } from "./json.ts"
import { unknownCallErrors } from "./unknown-call-errors.ts"
import type { Splicer, SplicerSettings } from "./wire-protocol.ts"

/**
 * A streamed chat completion chunk, as far as this module reads it (the `openai` client's
 * `ChatCompletionChunk` is one; other fields are carried as they came).
 */
export interface ChatChunk {
  readonly id: string
  readonly choices: readonly ChatChunkChoice[]
  readonly usage?: unknown
  readonly [field: string]: unknown
}

/** One choice of a {@link ChatChunk}. */
export interface ChatChunkChoice {
  readonly delta: JsonObject
  readonly finish_reason?: string | null | undefined
  readonly [field: string]: unknown
}

/**
 * The raw value riding on a chat part: its chunk, or `undefined` for the second and later tool
 * calls named in one chunk (the chunk is emitted once, with the first).
 */
export type ChatRaw = ChatChunk | undefined

type Delta = JsonObject
function deltaOf(chunk: ChatChunk): Delta | undefined {
  const choice = chunk.choices?.[0]
  if (choice === undefined) return undefined
  return isRecord(choice.delta) ? choice.delta : {}
}

/** The tool name a streamed tool-call delta introduces (`function.name` or `custom.name`). */
export function calledName(call: unknown): string | undefined {
  if (!isRecord(call)) return undefined
  const name = nameOf(call.function) ?? nameOf(call.custom)
  return typeof name === "string" && name.length > 0 ? name : undefined
}

function calledText(call: unknown): string {
  if (!isRecord(call)) return ""
  const fn = call.function
  const custom = call.custom
  const text =
    isRecord(fn) && fn.arguments != null ? fn.arguments : isRecord(custom) ? custom.input : undefined
  return typeof text === "string" ? text : ""
}

function nameOf(value: unknown): unknown {
  return isRecord(value) ? (value.name ?? undefined) : undefined
}

const NO_NAMES: readonly string[] = []

function withDelta(chunk: ChatChunk, delta: Delta, finish: boolean): ChatChunk {
  const choice = chunk.choices[0]!
  return {
    ...chunk,
    choices: [{ ...choice, delta, finish_reason: finish ? choice.finish_reason : null }],
  }
}

/** The normalized parts of one streamed chunk (n = 1: recovery skips `n > 1`). */
export function chunkParts(chunk: ChatChunk): NormalizedPart<ChatRaw>[] {
  const delta = deltaOf(chunk)
  if (delta === undefined) return [{ type: "other", raw: chunk }]
  const rKey = reasoningField(delta)
  const reasoning = rKey === undefined ? "" : String(delta[rKey])
  const content = typeof delta.content === "string" ? delta.content : ""
  // Most chunks carry no tool call: no arrays are built for them.
  const calls = delta.tool_calls
  const names =
    Array.isArray(calls) && calls.length > 0
      ? calls.map(calledName).filter((name): name is string => name !== undefined)
      : NO_NAMES
  const finish = chunk.choices[0]?.finish_reason != null

  if (reasoning.length > 0 !== content.length > 0 && names.length === 0 && !finish) {
    return reasoning.length > 0
      ? [{ type: "reasoning", text: reasoning, raw: chunk }]
      : [{ type: "text", text: content, raw: chunk }]
  }
  if (reasoning.length === 0 && content.length === 0) return carrierParts(chunk, names, finish)

  // A chunk mixing text with other things: text parts first, then the rest of the chunk.
  const parts: NormalizedPart<ChatRaw>[] = []
  const { role, content: _c, reasoning: _r, reasoning_content: _rc, ...others } = delta
  let roleLeft = role
  if (reasoning.length > 0 && rKey !== undefined) {
    const piece = withDelta(
      chunk,
      roleLeft === undefined ? { [rKey]: reasoning } : { role: roleLeft, [rKey]: reasoning },
      false,
    )
    parts.push({ type: "reasoning", text: reasoning, raw: piece })
    roleLeft = undefined
  }
  if (content.length > 0) {
    const piece = withDelta(chunk, roleLeft === undefined ? { content } : { role: roleLeft, content }, false)
    parts.push({ type: "text", text: content, raw: piece })
  }
  if (Object.keys(others).length > 0 || finish) {
    parts.push(...carrierParts(withDelta(chunk, others, true), names, finish))
  }
  return parts
}

function carrierParts(
  chunk: ChatChunk,
  names: readonly string[],
  finish: boolean,
): NormalizedPart<ChatRaw>[] {
  if (names.length > 0) {
    return names.map((toolName, i) => ({ type: "tool-call", toolName, raw: i === 0 ? chunk : undefined }))
  }
  if (!finish) return [{ type: "other", raw: chunk }]
  // The output limit: markup still open then is a call cut off (`truncated-call`).
  return [
    chunk.choices[0]?.finish_reason === "length"
      ? { type: "finish", raw: chunk, truncated: true }
      : { type: "finish", raw: chunk },
  ]
}

/** The ids of the tool calls a chunk introduces. */
export function chunkCallIds(chunk: ChatRaw): string[] {
  const calls = chunk === undefined ? undefined : deltaOf(chunk)?.tool_calls
  if (!Array.isArray(calls)) return []
  const ids: string[] = []
  for (const call of calls) {
    const id = isRecord(call) ? call.id : undefined
    if (typeof id === "string" && id.length > 0) ids.push(id)
  }
  return ids
}

/**
 * The usage of an abandoned attempt: its last report. With continuous usage stats every chunk
 * carries the running total, so the finish chunk and the usage chunk may both hold it.
 */
function lastUsage(chunks: readonly ChatRaw[]): unknown {
  return chunks.findLast((chunk) => chunk?.usage != null)?.usage
}

interface TrackedCall {
  readonly index: number
  readonly name: string
  params: string
}

/**
 * Creates the output side of a recovered chat stream: one chunk or none per output part
 * (`tool_call_errors`, when asked for, ride on the finish chunk).
 */
export function createChatSplicer(options: SplicerSettings): Splicer<ChatRaw, ChatChunk> {
  return new ChatStreamSplicer(options.tools, options.returnToolCallErrors)
}

/**
 * The splice's state as fields, its steps prototype methods: every open recovered stream (the
 * proxy's too) holds one, and a closure per step with their shared context cost more than it.
 */
class ChatStreamSplicer implements Splicer<ChatRaw, ChatChunk> {
  private readonly tools: readonly string[]
  private readonly returnToolCallErrors: boolean
  private round = 0
  private firstId: string | undefined
  private roleSent = false
  private readonly calls: TrackedCall[] = []
  /** Usage of the abandoned attempts: the usage chunk of the last one reports the turn's sum. */
  private spent: unknown

  constructor(tools: readonly string[], returnToolCallErrors: boolean) {
    this.tools = tools
    this.returnToolCallErrors = returnToolCallErrors
  }

  push(part: OutputPart<ChatRaw>): ChatChunk[] {
    switch (part.type) {
      case "attempt-start": {
        this.round = part.round
        this.calls.length = 0
        const usage = lastUsage(part.discarded)
        if (usage != null) this.spent = sumUsage(this.spent, usage)
        return []
      }
      case "text":
        return this.textChunk(part, "content")
      case "reasoning":
        return this.textChunk(
          part,
          (part.raw === undefined ? undefined : reasoningField(deltaOf(part.raw))) ?? "reasoning_content",
        )
      case "tool-call":
      case "finish":
      case "other":
        return part.raw === undefined ? [] : [this.emit(part.raw)]
      default:
        return part satisfies never
    }
  }

  private track(chunk: ChatChunk): void {
    const delta = deltaOf(chunk)
    if (delta === undefined || !Array.isArray(delta.tool_calls)) return
    const { calls } = this
    for (const call of delta.tool_calls) {
      const index = isRecord(call) && typeof call.index === "number" ? call.index : 0
      const name = calledName(call)
      if (name !== undefined) {
        calls.push({ index, name, params: calledText(call) })
        continue
      }
      // Argument deltas continue the latest call with the same index (vLLM and Ollama have sent
      // several calls all with index 0, each introduced by its own name).
      for (let i = calls.length - 1; i >= 0; i--) {
        const tracked = calls[i]!
        if (tracked.index === index) {
          tracked.params += calledText(call)
          break
        }
      }
    }
  }

  private emit(chunk: ChatChunk): ChatChunk {
    let out = chunk
    if (this.firstId === undefined) this.firstId = chunk.id
    else if (this.round > 0 && chunk.id !== this.firstId) out = { ...out, id: this.firstId }
    const delta = deltaOf(out)
    if (delta?.role !== undefined) {
      if (this.roleSent) {
        const { role: _role, ...rest } = delta
        out = withDelta(out, rest, true)
      } else this.roleSent = true
    }
    if (this.spent !== undefined && out.usage != null)
      out = { ...out, usage: sumUsage(this.spent, out.usage) }
    if (this.returnToolCallErrors) {
      this.track(out)
      if (out.choices[0]?.finish_reason != null)
        out = { ...out, tool_call_errors: unknownCallErrors(this.calls, this.tools) }
    }
    return out
  }

  private textChunk(
    part: { readonly text: string; readonly raw?: ChatRaw },
    key: "content" | ReasoningField,
  ): ChatChunk[] {
    // Text parts always carry their chunk (runTurn keeps `raw` on a re-cut part).
    const raw = part.raw
    if (raw === undefined) return []
    const delta = deltaOf(raw) ?? {}
    if ((delta[key] ?? "") === part.text) return [this.emit(raw)]
    if (part.text.length === 0) return []
    // A re-cut part: the chunk with only this text (its logprobs no longer line up with it).
    const next: Delta =
      delta.role === undefined ? { [key]: part.text } : { role: delta.role, [key]: part.text }
    const chunk = withDelta(raw, next, false)
    return [this.emit({ ...chunk, choices: [{ ...chunk.choices[0]!, logprobs: null }] })]
  }
}
