/**
 * Responses API wire format (`POST /v1/responses`): the JSON `response` object and the full SSE
 * event sequence that the `openai` client's `responses.stream()` accumulator accepts —
 * `response.created`, `response.in_progress`, then per output item `output_item.added`,
 * (`content_part.added`, text deltas, text done, `content_part.done`) or argument deltas and
 * done, `output_item.done`, and finally `response.completed` (or `response.incomplete`), each
 * with a `sequence_number` counting from 0. Items come in the order reasoning, message, calls.
 */
import type { ResolvedReply, SseFrame } from "./replay-reply.ts"
import type { ReplayErrorBody, ReplayRequestBody } from "./replay-script.ts"

type Item = Record<string, unknown>

function reasoningItem(reply: ResolvedReply, text: string, done: boolean): Item {
  return {
    id: `rs_replay_${reply.turn}_0`,
    type: "reasoning",
    summary: [],
    content: done ? [{ type: "reasoning_text", text }] : [],
    ...(done ? { status: "completed" } : { status: "in_progress" }),
  }
}

function outputTextPart(text: string): Item {
  return { type: "output_text", text, annotations: [], logprobs: [] }
}

function messageItem(reply: ResolvedReply, text: string, done: boolean): Item {
  return {
    id: `msg_replay_${reply.turn}_0`,
    type: "message",
    role: "assistant",
    status: done ? "completed" : "in_progress",
    content: done ? [outputTextPart(text)] : [],
  }
}

function functionCallItem(reply: ResolvedReply, index: number, done: boolean): Item {
  const call = reply.toolCalls[index]!
  return {
    id: `fc_replay_${reply.turn}_${index}`,
    type: "function_call",
    status: done ? "completed" : "in_progress",
    call_id: call.id,
    name: call.name,
    arguments: done ? call.arguments : "",
  }
}

/** The completed output items, in wire order. */
function finalOutput(reply: ResolvedReply): Item[] {
  const output: Item[] = []
  if (reply.reasoning !== undefined) output.push(reasoningItem(reply, reply.reasoning, true))
  if (reply.content !== undefined) output.push(messageItem(reply, reply.content, true))
  reply.toolCalls.forEach((_, index) => {
    output.push(functionCallItem(reply, index, true))
  })
  return output
}

function responseObject(
  reply: ResolvedReply,
  body: ReplayRequestBody,
  phase: "in_progress" | "final",
  output: Item[],
): Item {
  const incomplete = phase === "final" && reply.finishReason === "length"
  const status = phase === "in_progress" ? "in_progress" : incomplete ? "incomplete" : "completed"
  return {
    id: `resp_replay_${reply.turn}`,
    object: "response",
    created_at: reply.created,
    status,
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage:
      phase === "final"
        ? {
            input_tokens: reply.usage.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: reply.usage.output,
            output_tokens_details: { reasoning_tokens: reply.usage.reasoning },
            total_tokens: reply.usage.input + reply.usage.output,
          }
        : null,
    metadata: {},
  }
}

/** The non-streaming `response` body. */
export function responsesJson(reply: ResolvedReply, body: ReplayRequestBody): Record<string, unknown> {
  return responseObject(reply, body, "final", finalOutput(reply))
}

/** The Responses SSE events, terminal `response.completed` / `response.incomplete` included. */
export function responsesFrames(reply: ResolvedReply, body: ReplayRequestBody): SseFrame[] {
  const frames: SseFrame[] = []
  let sequence = 0
  const emit = (type: string, fields: Record<string, unknown>, delta = false): void => {
    frames.push({
      event: type,
      data: JSON.stringify({ type, ...fields, sequence_number: sequence++ }),
      delta,
    })
  }
  emit("response.created", { response: responseObject(reply, body, "in_progress", []) })
  emit("response.in_progress", { response: responseObject(reply, body, "in_progress", []) })
  let outputIndex = 0

  if (reply.reasoning !== undefined) {
    const index = outputIndex++
    const itemId = `rs_replay_${reply.turn}_0`
    const text = reply.reasoning
    emit("response.output_item.added", { output_index: index, item: reasoningItem(reply, "", false) })
    const part = { type: "reasoning_text", text: "" }
    emit("response.content_part.added", { item_id: itemId, output_index: index, content_index: 0, part })
    for (const delta of reply.reasoningDeltas) {
      emit(
        "response.reasoning_text.delta",
        { item_id: itemId, output_index: index, content_index: 0, delta },
        true,
      )
    }
    emit("response.reasoning_text.done", { item_id: itemId, output_index: index, content_index: 0, text })
    emit("response.content_part.done", {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      part: { type: "reasoning_text", text },
    })
    emit("response.output_item.done", { output_index: index, item: reasoningItem(reply, text, true) })
  }

  if (reply.content !== undefined) {
    const index = outputIndex++
    const itemId = `msg_replay_${reply.turn}_0`
    const text = reply.content
    emit("response.output_item.added", { output_index: index, item: messageItem(reply, "", false) })
    emit("response.content_part.added", {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      part: outputTextPart(""),
    })
    for (const delta of reply.contentDeltas) {
      emit(
        "response.output_text.delta",
        { item_id: itemId, output_index: index, content_index: 0, delta, logprobs: [] },
        true,
      )
    }
    emit("response.output_text.done", {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      text,
      logprobs: [],
    })
    emit("response.content_part.done", {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      part: outputTextPart(text),
    })
    emit("response.output_item.done", { output_index: index, item: messageItem(reply, text, true) })
  }

  reply.toolCalls.forEach((call, callIndex) => {
    const index = outputIndex++
    const itemId = `fc_replay_${reply.turn}_${callIndex}`
    emit("response.output_item.added", {
      output_index: index,
      item: functionCallItem(reply, callIndex, false),
    })
    for (const delta of call.deltas) {
      emit("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta }, true)
    }
    emit("response.function_call_arguments.done", {
      item_id: itemId,
      output_index: index,
      name: call.name,
      arguments: call.arguments,
    })
    emit("response.output_item.done", { output_index: index, item: functionCallItem(reply, callIndex, true) })
  })

  const final = responseObject(reply, body, "final", finalOutput(reply))
  emit(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final })
  return frames
}

/**
 * The mid-stream `error` event of a Responses stream. Its sequence number follows the frames
 * already sent (the `openai` client throws an `APIError` on it).
 */
export function responsesErrorFrame(error: Required<ReplayErrorBody>, sequence: number): SseFrame {
  return {
    event: "error",
    data: JSON.stringify({
      type: "error",
      code: error.code,
      message: error.message,
      param: error.param,
      sequence_number: sequence,
    }),
    delta: false,
  }
}
