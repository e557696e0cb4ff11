/**
 * Builders of the retry request. The retry is the original request, never the malformed
 * response, plus the host instruction:
 * - chat, placement `"system"`: merged into the leading system/developer message, or a new system
 *   message at index 0. Qwen3.5+ chat templates raise on a system message that is not first
 *   (vLLM answers 400, llama.cpp 500), so a trailing system message is never sent.
 * - Responses, placement `"system"`: appended to `instructions`, which is template-safe and is
 *   not inherited through `previous_response_id`.
 * - placement `"user"`: a final user message / user input item.
 * The request options drop the caller's idempotency key: the retry is a different request, and
 * a server that honours the key would answer it with the malformed response again.
 */

import { appendInstruction } from "@tool-rescue/recovery"

type Body = Readonly<Record<string, unknown>>
type Message = Readonly<Record<string, unknown>>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function appendText(content: unknown, instruction: string): unknown {
  if (typeof content === "string") return appendInstruction(content, instruction)
  if (Array.isArray(content)) return [...content, { type: "text", text: instruction }]
  return instruction
}

/**
 * The chat retry body: `body` with the instruction placed in `messages` (the original array and
 * its messages are not mutated).
 */
export function chatRetryBody(body: Body, instruction: string, placement: "system" | "user"): Body {
  const messages = Array.isArray(body.messages) ? (body.messages as readonly Message[]) : []
  if (placement === "user") {
    return { ...body, messages: [...messages, { role: "user", content: instruction }] }
  }
  const [first, ...rest] = messages
  if (first !== undefined && isRecord(first) && (first.role === "system" || first.role === "developer")) {
    return { ...body, messages: [{ ...first, content: appendText(first.content, instruction) }, ...rest] }
  }
  return { ...body, messages: [{ role: "system", content: instruction }, ...messages] }
}

/**
 * The Responses retry body: the instruction appended to `instructions` (placement `"system"`) or
 * a user input item appended to `input` (placement `"user"`).
 */
export function responsesRetryBody(body: Body, instruction: string, placement: "system" | "user"): Body {
  if (placement === "system") {
    const previous = typeof body.instructions === "string" ? body.instructions : ""
    return { ...body, instructions: appendInstruction(previous, instruction) }
  }
  const item = { type: "message", role: "user", content: instruction }
  const input = body.input
  if (typeof input === "string") {
    return { ...body, input: [{ type: "message", role: "user", content: input }, item] }
  }
  return { ...body, input: [...(Array.isArray(input) ? input : []), item] }
}

const IDEMPOTENCY_HEADER = "idempotency-key"

function withoutIdempotencyHeader(headers: unknown): unknown {
  if (headers === undefined || headers === null) return headers
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    const copy = new Headers(headers)
    copy.delete(IDEMPOTENCY_HEADER)
    return copy
  }
  if (Array.isArray(headers)) {
    return headers.filter(
      (row) => !(Array.isArray(row) && String(row[0]).toLowerCase() === IDEMPOTENCY_HEADER),
    )
  }
  if (isRecord(headers)) {
    const copy: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() !== IDEMPOTENCY_HEADER) copy[name] = value
    }
    return copy
  }
  return headers
}

/**
 * The request options of a retry: the caller's options (headers, timeout, `maxRetries`,
 * `__metadata`, …) without the idempotency key, with `signal` replaced by the turn's signal
 * (which already follows the caller's signal).
 */
export function retryRequestOptions(options: unknown, signal: AbortSignal): Record<string, unknown> {
  const base: Record<string, unknown> = isRecord(options) ? { ...options } : {}
  delete base.idempotencyKey
  if ("headers" in base) base.headers = withoutIdempotencyHeader(base.headers)
  base.signal = signal
  return base
}

/** The caller's `signal` from request options, when there is one. */
export function signalOf(options: unknown): AbortSignal | undefined {
  if (!isRecord(options)) return undefined
  const signal = options.signal
  return typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? signal : undefined
}

/** Whether `value` is a promise-like (the SDK accepts promised request options internally). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  )
}
