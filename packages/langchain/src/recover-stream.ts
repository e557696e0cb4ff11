import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages"
import type { ChatGenerationChunk } from "@langchain/core/outputs"
import type { OutputPart } from "@tool-rescue/recovery"
import { type ChunkRaw, chunkParts, EMPTY, textChunk, usageOf } from "./chunk-parts.ts"
import {
  type CallOptions,
  type ModelCall,
  mutedTokens,
  type RecoverySettings,
  recoveryTurn,
} from "./recovery-run.ts"
import { createTurnUsage } from "./turn-usage.ts"

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
 * `handleLLMNewToken`, as a model does.
 */
export async function* recoverStream(
  stream: StreamChunks,
  settings: RecoverySettings,
  call: ModelCall,
  runManager: CallbackManagerForLLMRun | undefined,
): AsyncGenerator<ChatGenerationChunk> {
  const { messages, options } = call
  const muted = mutedTokens(runManager)
  const parts = recoveryTurn<ChunkRaw>(settings, call, (attemptMessages, attemptOptions) =>
    streamParts(stream(attemptMessages, attemptOptions, muted)),
  )
  if (parts === undefined) {
    yield* stream(messages, options, runManager)
    return
  }
  const usage = createTurnUsage()
  let id: string | undefined
  let retried = false
  const index = { prompt: typeof options.promptIndex === "number" ? options.promptIndex : 0, completion: 0 }
  for await (const part of parts) {
    if (part.type === "attempt-start") {
      retried = true
      for (const raw of part.discarded) usage.discard(usageOf(raw.chunk))
      continue
    }
    let chunk = outputChunk(part)
    if (chunk === undefined) continue
    if (usage.pending !== undefined && usageOf(chunk) !== undefined)
      chunk = withUsage(chunk, usage.settle(usageOf(chunk)))
    id ??= chunk.message.id
    if (retried && id !== undefined && chunk.message.id !== id) chunk.message._updateId(id)
    yield chunk
    await runManager?.handleLLMNewToken(chunk.text, index, undefined, undefined, undefined, { chunk })
  }
  const unreported = usage.settle(undefined)
  // The final attempt reported no usage of its own: the discarded attempts' usage still counts.
  if (unreported !== undefined) {
    const chunk = withUsage(textChunk("", "text", EMPTY.chunk), unreported)
    if (id !== undefined) chunk.message._updateId(id)
    yield chunk
  }
}

async function* streamParts(chunks: AsyncIterable<ChatGenerationChunk>) {
  for await (const chunk of chunks) yield* chunkParts(chunk)
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
        : textChunk(part.text, part.type, raw.chunk)
    case "tool-call":
    case "finish":
    case "other":
      return raw.chunk
    default:
      return part satisfies never
  }
}

function withUsage(chunk: ChatGenerationChunk, usage: ReturnType<typeof usageOf>): ChatGenerationChunk {
  const message = chunk.message as ChatGenerationChunk["message"] & { usage_metadata?: typeof usage }
  message.usage_metadata = usage
  return chunk
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
