/**
 * The streaming mapping: LangChain `ChatGenerationChunk`s to recovery's normalized parts and
 * back. One chunk may carry several things at once (reasoning, content, tool-call chunks, a
 * finish reason, usage); it becomes one part per thing, in that order, and the non-text rest of
 * the chunk rides as the raw of a single `tool-call`, `finish` or `other` part, so nothing but the
 * text is ever rebuilt.
 */

import { AIMessageChunk, type MessageContent, type UsageMetadata } from "@langchain/core/messages"
import { ChatGenerationChunk } from "@langchain/core/outputs"
import type { NormalizedPart } from "@tool-rescue/recovery"
import { type ReasoningField, reasoningField } from "@tool-rescue/recovery/adapter"
import { contentText, type TextBlock, textContent } from "./content-text.ts"

/** The raw of a streamed part: the chunk it came from, and whether the part is all of it. */
export interface ChunkRaw {
  readonly chunk: ChatGenerationChunk
  /** The part is the whole chunk (a content-only chunk): it is yielded as the very chunk. */
  readonly whole: boolean
  /** The content block a text part came from (array content), rebuilt around its pieces. */
  readonly block?: TextBlock | undefined
}

/** The field of `additional_kwargs` that carries the provider's separate reasoning text, per `recovery`. */
function reasoningFieldOf(message: ChatGenerationChunk["message"]): ReasoningField | undefined {
  return reasoningField(message.additional_kwargs)
}

function reasoningOf(message: ChatGenerationChunk["message"]): string {
  const field = reasoningFieldOf(message)
  return field === undefined ? "" : String(message.additional_kwargs[field])
}

/** Names of the tool calls that start in this chunk (a streamed call names itself once). */
function startedCalls(message: ChatGenerationChunk["message"]): { name: string; args: string }[] {
  const chunks = AIMessageChunk.isInstance(message) ? (message.tool_call_chunks ?? []) : []
  const calls: { name: string; args: string }[] = []
  for (const call of chunks) {
    if (typeof call.name === "string" && call.name.length > 0)
      calls.push({ name: call.name, args: call.args ?? "" })
  }
  return calls
}

/**
 * The provider stopped at the output limit: finish reason `length` (Chat Completions) or
 * `max_tokens` (Anthropic), or a Responses API response `incomplete` for `max_output_tokens`.
 * Markup still open then is a call cut off, not a format mistake (`truncated-call`).
 */
export function isTruncated(
  generationInfo: Readonly<Record<string, unknown>> | undefined,
  metadata: Readonly<Record<string, unknown>> | undefined,
): boolean {
  const reason = generationInfo?.finish_reason ?? metadata?.finish_reason ?? metadata?.stop_reason
  if (reason === "length" || reason === "max_tokens") return true
  const incomplete = metadata?.incomplete_details
  return (
    typeof incomplete === "object" &&
    incomplete !== null &&
    (incomplete as { reason?: unknown }).reason === "max_output_tokens"
  )
}

function isFinish(chunk: ChatGenerationChunk): boolean {
  const message = chunk.message
  return (
    chunk.generationInfo?.finish_reason != null ||
    message.response_metadata?.finish_reason != null ||
    (AIMessageChunk.isInstance(message) && message.usage_metadata !== undefined)
  )
}

/** The chunk without its text and reasoning text: `content` is what is left of its content. */
function restOf(chunk: ChatGenerationChunk, content: MessageContent): ChatGenerationChunk {
  const message = chunk.message
  const field = reasoningFieldOf(message)
  const additional_kwargs = { ...message.additional_kwargs }
  if (field !== undefined) delete additional_kwargs[field]
  const fields = AIMessageChunk.isInstance(message)
    ? {
        tool_call_chunks: message.tool_call_chunks,
        ...(message.usage_metadata === undefined ? {} : { usage_metadata: message.usage_metadata }),
      }
    : {}
  return new ChatGenerationChunk({
    text: "",
    message: new AIMessageChunk({
      content,
      ...(message.id === undefined ? {} : { id: message.id }),
      additional_kwargs,
      response_metadata: message.response_metadata,
      ...fields,
    }),
    ...(chunk.generationInfo === undefined ? {} : { generationInfo: chunk.generationInfo }),
  })
}

/** The normalized parts of one streamed chunk, in order. */
export function chunkParts(chunk: ChatGenerationChunk): NormalizedPart<ChunkRaw>[] {
  const message = chunk.message
  const reasoning = reasoningOf(message)
  const calls = startedCalls(message)
  const finish = isFinish(chunk)
  if (typeof message.content === "string" && reasoning === "" && calls.length === 0 && !finish) {
    return [{ type: "text", text: message.content, raw: { chunk, whole: true } }]
  }
  const { pieces, rest: restContent } = contentText(message.content)
  if (reasoning === "" && pieces.length === 0) return [restPart(finish, chunk, { chunk, whole: true })]
  const parts: NormalizedPart<ChunkRaw>[] = []
  if (reasoning !== "") parts.push({ type: "reasoning", text: reasoning, raw: { chunk, whole: false } })
  for (const { text, block } of pieces)
    parts.push({ type: "text", text, raw: { chunk, whole: false, block } })
  const rest = { chunk: restOf(chunk, restContent), whole: true }
  const [call, ...more] = calls
  if (call !== undefined) {
    parts.push({ type: "tool-call", toolName: call.name, params: call.args, raw: rest })
    // Further calls started in the same chunk: the rest already carries them.
    for (const next of more)
      parts.push({ type: "tool-call", toolName: next.name, params: next.args, raw: EMPTY })
  } else parts.push(restPart(finish, chunk, rest))
  return parts
}

/** The part carrying a chunk's non-text rest: the finish (with `truncated`), or anything else. */
function restPart(finish: boolean, chunk: ChatGenerationChunk, raw: ChunkRaw): NormalizedPart<ChunkRaw> {
  if (!finish) return { type: "other", raw }
  return isTruncated(chunk.generationInfo, chunk.message.response_metadata)
    ? { type: "finish", raw, truncated: true }
    : { type: "finish", raw }
}

/** The raw of a part that has nothing left to yield (a second call of one chunk). */
export const EMPTY: ChunkRaw = {
  chunk: new ChatGenerationChunk({ text: "", message: new AIMessageChunk("") }),
  whole: false,
}

/**
 * A chunk holding only `text`, as content (a string, or a copy of the text block it came from)
 * or as reasoning, with the id of `like`.
 */
export function textChunk(
  text: string,
  channel: "text" | "reasoning",
  like: ChatGenerationChunk,
  block?: TextBlock,
): ChatGenerationChunk {
  const id = like.message.id
  const message =
    channel === "text"
      ? new AIMessageChunk({ content: textContent(text, block), ...(id === undefined ? {} : { id }) })
      : new AIMessageChunk({
          content: "",
          additional_kwargs: { [reasoningFieldOf(like.message) ?? "reasoning_content"]: text },
          ...(id === undefined ? {} : { id }),
        })
  // No generationInfo: a finish reason it may hold stays with the chunk's rest, once.
  return new ChatGenerationChunk({ text: channel === "text" ? text : "", message })
}

/** The usage a chunk reports, if any. */
export function usageOf(chunk: ChatGenerationChunk): UsageMetadata | undefined {
  return AIMessageChunk.isInstance(chunk.message) ? chunk.message.usage_metadata : undefined
}
