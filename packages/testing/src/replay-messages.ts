/**
 * Anthropic Messages wire format (`POST /v1/messages`), as Ollama's, vLLM's and llama.cpp's
 * Anthropic endpoints serve it: the JSON `message` object and the SSE event sequence
 * (`message_start`; per content block `content_block_start`, deltas, `content_block_stop` —
 * thinking, then text, then one `tool_use` block per call; `message_delta` with the stop reason
 * and usage; `message_stop`). Errors use Anthropic's `{"type": "error", "error": {…}}` shape.
 */
import type { ResolvedReply, SseFrame } from "./replay-reply.ts"
import type { ReplayErrorBody, ReplayFinishReason } from "./replay-script.ts"

const STOP_REASONS: Readonly<Record<ReplayFinishReason, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
}

function parsedInput(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}

function usageJson(reply: ResolvedReply): Record<string, unknown> {
  return { input_tokens: reply.usage.input, output_tokens: reply.usage.output }
}

/** The non-streaming `message` body. */
export function messagesJson(reply: ResolvedReply): Record<string, unknown> {
  const content: Record<string, unknown>[] = []
  if (reply.reasoning !== undefined)
    content.push({ type: "thinking", thinking: reply.reasoning, signature: "" })
  if (reply.content !== undefined) content.push({ type: "text", text: reply.content })
  for (const call of reply.toolCalls)
    content.push({ type: "tool_use", id: call.id, name: call.name, input: parsedInput(call.arguments) })
  return {
    id: `msg_replay_${reply.turn}`,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: STOP_REASONS[reply.finishReason],
    stop_sequence: null,
    usage: usageJson(reply),
  }
}

/** The SSE events of a streamed message. */
export function messagesFrames(reply: ResolvedReply): SseFrame[] {
  const frames: SseFrame[] = []
  const send = (body: Record<string, unknown> & { type: string }, delta = false): void => {
    frames.push({ event: body.type, data: JSON.stringify(body), delta })
  }
  send({
    type: "message_start",
    message: {
      id: `msg_replay_${reply.turn}`,
      type: "message",
      role: "assistant",
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: reply.usage.input, output_tokens: 1 },
    },
  })
  let index = 0
  const block = (start: Record<string, unknown>, deltas: readonly Record<string, unknown>[]): void => {
    send({ type: "content_block_start", index, content_block: start })
    for (const delta of deltas) send({ type: "content_block_delta", index, delta }, true)
    send({ type: "content_block_stop", index })
    index++
  }
  if (reply.reasoning !== undefined) {
    block(
      { type: "thinking", thinking: "", signature: "" },
      reply.reasoningDeltas.map((thinking) => ({ type: "thinking_delta", thinking })),
    )
  }
  if (reply.content !== undefined) {
    block(
      { type: "text", text: "" },
      reply.contentDeltas.map((text) => ({ type: "text_delta", text })),
    )
  }
  for (const call of reply.toolCalls) {
    block(
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      call.deltas.map((partial_json) => ({ type: "input_json_delta", partial_json })),
    )
  }
  send({
    type: "message_delta",
    delta: { stop_reason: STOP_REASONS[reply.finishReason], stop_sequence: null },
    usage: { output_tokens: reply.usage.output },
  })
  send({ type: "message_stop" })
  return frames
}

/** Anthropic's error type for an HTTP status. */
export function messagesErrorType(status: number): string {
  if (status === 400) return "invalid_request_error"
  if (status === 401) return "authentication_error"
  if (status === 403) return "permission_error"
  if (status === 404) return "not_found_error"
  if (status === 413) return "request_too_large"
  if (status === 429) return "rate_limit_error"
  if (status === 529) return "overloaded_error"
  return "api_error"
}

/** An error body in Anthropic's shape (`code` kept when the script gives one). */
export function messagesErrorJson(status: number, error: ReplayErrorBody): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: error.type ?? messagesErrorType(status),
    message: error.message ?? `Replay server error (HTTP ${status})`,
  }
  if (error.code !== undefined && error.code !== null) body.code = error.code
  return { type: "error", error: body }
}

/** The mid-stream `error` event (the Anthropic SDK throws an `APIError` on it). */
export function messagesErrorFrame(error: ReplayErrorBody): SseFrame {
  return { event: "error", data: JSON.stringify(messagesErrorJson(500, error)), delta: false }
}
