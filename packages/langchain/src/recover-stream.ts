import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import { AIMessageChunk, type BaseMessage, type UsageMetadata } from "@langchain/core/messages"
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs"
import type { OutputPart } from "@tool-rescue/recovery"
import { sumUsage } from "@tool-rescue/recovery/adapter"
import { type ChunkRaw, chunkParts, EMPTY, textChunk, usageOf } from "./chunk-parts.ts"
import {
  type CallOptions,
  type ModelCall,
  mutedTokens,
  type RecoverySettings,
  recoveryTurn,
} from "./recovery-turn.ts"
import { markTurn } from "./turn-mark.ts"

/** The model's own streaming primitive, called on the unwrapped model. */
export type StreamChunks = (
  messages: BaseMessage[],
  options: CallOptions,
  runManager: CallbackManagerForLLMRun | undefined,
) => AsyncIterable<ChatGenerationChunk>

/**
 * The wrapped `_streamResponseChunks`: the model's chunks without the markup, a retry's chunks
 * spliced in after the visible text of the malformed attempt (same message id, so the stream is
 * one message), usage summed over the attempts. Every chunk yielded is also reported through
 * `handleLLMNewToken`, as a model does. A recovered stream ends with a chunk holding the turn
 * mark (and the discarded attempts' usage, when the last attempt reported none).
 */
export async function* recoverStream(
  stream: StreamChunks,
  settings: RecoverySettings,
  call: ModelCall,
  runManager: CallbackManagerForLLMRun | undefined,
): AsyncGenerator<ChatGenerationChunk> {
  const muted = mutedTokens(runManager)
  const turn = recoveryTurn<ChunkRaw>(
    settings,
    call,
    async function* (messages, options) {
      for await (const chunk of stream(messages, options, muted)) yield* chunkParts(chunk)
    },
    // The chunks are shown as they come: a retry continues after what an abandoned attempt showed.
    true,
  )
  if (turn === undefined) {
    yield* stream(call.messages, call.options, runManager)
    return
  }
  const promptIndex = call.options.promptIndex
  const index = { prompt: typeof promptIndex === "number" ? promptIndex : 0, completion: 0 }
  const emit = async (chunk: ChatGenerationChunk) => {
    await runManager?.handleLLMNewToken(chunk.text, index, undefined, undefined, undefined, { chunk })
    return chunk
  }
  /** Usage of discarded attempts not yet added to a reported usage. */
  let pending: UsageMetadata | undefined
  let id: string | undefined
  let retries = 0
  for await (const part of turn.parts) {
    if (part.type === "attempt-start") {
      retries++
      for (const raw of part.discarded) {
        const usage = usageOf(raw.chunk)
        if (usage !== undefined) pending = sumUsage(pending, usage)
      }
      continue
    }
    const chunk = outputChunk(part)
    if (chunk === undefined) continue
    const usage = usageOf(chunk)
    if (pending !== undefined && usage !== undefined) {
      setUsage(chunk, sumUsage(pending, usage))
      pending = undefined
    }
    id ??= chunk.message.id
    if (retries > 0 && id !== undefined && chunk.message.id !== id) chunk.message._updateId(id)
    yield await emit(chunk)
  }
  if (retries === 0) return
  const mark = new AIMessageChunk({
    content: "",
    response_metadata: markTurn(undefined, turn.recoveriesBefore + retries),
    ...(id === undefined ? {} : { id }),
    ...(pending === undefined ? {} : { usage_metadata: pending }),
  } as ConstructorParameters<typeof AIMessageChunk>[0])
  yield await emit(new ChatGenerationChunk({ text: "", message: mark }))
}

/** The chunk to yield for an output part (text parts may be pieces of their chunk). */
function outputChunk(
  part: Exclude<OutputPart<ChunkRaw>, { type: "attempt-start" }>,
): ChatGenerationChunk | undefined {
  const raw = part.raw
  if (raw === undefined || raw === EMPTY) return undefined
  switch (part.type) {
    case "text":
    case "reasoning":
      return raw.whole && part.text === raw.chunk.text
        ? raw.chunk
        : textChunk(part.text, part.type, raw.chunk, raw.block)
    case "tool-call":
    case "finish":
    case "other":
      return raw.chunk
    default:
      return part satisfies never
  }
}

function setUsage(chunk: ChatGenerationChunk, usage: UsageMetadata): void {
  if (AIMessageChunk.isInstance(chunk.message)) Object.assign(chunk.message, { usage_metadata: usage })
}

/**
 * The chunks with every tool-call chunk's `index` one higher: for `BaseChatModel`'s bridge from
 * chunks to content-block events, which keeps string content in block 0 (see
 * `withToolCallRecovery`'s `_streamChatModelEvents`).
 */
export async function* toolBlocksAfterText(
  chunks: AsyncIterable<ChatGenerationChunk>,
): AsyncGenerator<ChatGenerationChunk> {
  for await (const chunk of chunks) {
    const message = chunk.message
    if (AIMessageChunk.isInstance(message) && message.tool_call_chunks !== undefined) {
      message.tool_call_chunks = message.tool_call_chunks.map((call) => ({
        ...call,
        index: (call.index ?? 0) + 1,
      }))
    }
    yield chunk
  }
}

/**
 * A `_generate` result from recovering chunks: their concatenation, as `BaseChatModel` itself
 * aggregates a stream for `invoke` when a callback prefers streaming.
 */
export async function generateFromStream(chunks: AsyncIterable<ChatGenerationChunk>): Promise<ChatResult> {
  let aggregated: ChatGenerationChunk | undefined
  for await (const chunk of chunks) aggregated = aggregated === undefined ? chunk : aggregated.concat(chunk)
  if (aggregated === undefined) throw new Error("tool-rescue: the model streamed no chunk")
  return { generations: [aggregated] }
}
