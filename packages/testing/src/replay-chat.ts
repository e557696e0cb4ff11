/**
 * Chat Completions wire format (`POST /v1/chat/completions`): the JSON `chat.completion` object
 * and the `chat.completion.chunk` SSE sequence, shaped like OpenAI's own (role chunk first, one
 * tool-call header delta with `id`, `type` and `name` then argument deltas, a finish chunk, then
 * — with `stream_options.include_usage` — a usage chunk with `choices: []`, then `[DONE]`).
 */
import type { ResolvedReply, SseFrame } from "./replay-reply.ts"
import type { ReplayErrorBody } from "./replay-script.ts"

function usageJson(reply: ResolvedReply): Record<string, unknown> {
  return {
    prompt_tokens: reply.usage.input,
    completion_tokens: reply.usage.output,
    total_tokens: reply.usage.input + reply.usage.output,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reply.usage.reasoning },
  }
}

/** The non-streaming `chat.completion` body. */
export function chatCompletionJson(reply: ResolvedReply): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.content ?? null,
    refusal: null,
  }
  if (reply.reasoning !== undefined) message[reply.reasoningField] = reply.reasoning
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }))
  }
  return {
    id: `chatcmpl-replay-${reply.turn}`,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: usageJson(reply),
  }
}

/** The `chat.completion.chunk` SSE frames, `[DONE]` included. */
export function chatCompletionFrames(reply: ResolvedReply, includeUsage: boolean): SseFrame[] {
  const frames: SseFrame[] = []
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, isDelta: boolean): void => {
    const body: Record<string, unknown> = {
      id: `chatcmpl-replay-${reply.turn}`,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    }
    // OpenAI sends `usage: null` on every chunk but the last when usage is requested.
    if (includeUsage) body.usage = null
    frames.push({ data: JSON.stringify(body), delta: isDelta })
  }
  chunk({ role: "assistant", content: "" }, null, false)
  for (const text of reply.reasoningDeltas) chunk({ [reply.reasoningField]: text }, null, true)
  for (const text of reply.contentDeltas) chunk({ content: text }, null, true)
  reply.toolCalls.forEach((call, index) => {
    chunk(
      {
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      },
      null,
      false,
    )
    for (const text of call.deltas)
      chunk({ tool_calls: [{ index, function: { arguments: text } }] }, null, true)
  })
  chunk({}, reply.finishReason, false)
  if (includeUsage) {
    frames.push({
      data: JSON.stringify({
        id: `chatcmpl-replay-${reply.turn}`,
        object: "chat.completion.chunk",
        created: reply.created,
        model: reply.model,
        choices: [],
        usage: usageJson(reply),
      }),
      delta: false,
    })
  }
  frames.push({ data: "[DONE]", delta: false })
  return frames
}

/** The mid-stream error frame of a chat stream (the `openai` client throws an `APIError` on it). */
export function chatErrorFrame(error: Required<ReplayErrorBody>): SseFrame {
  return { data: JSON.stringify({ error }), delta: false }
}
