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

import { type PromptOperations, placeInstruction } from "@tool-rescue/recovery/adapter"

type Body = Readonly<Record<string, unknown>>
type Message = Readonly<Record<string, unknown>>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function messagesOf(body: Body): readonly Message[] {
  return Array.isArray(body.messages) ? (body.messages as readonly Message[]) : []
}

/** A system/developer message's content with `merge` applied: a string, or a list of parts (the instruction joins as a text part). */
function mergeContent(content: unknown, merge: (text: string) => string): unknown {
  if (typeof content === "string") return merge(content)
  if (Array.isArray(content)) return [...content, { type: "text", text: merge("") }]
  return merge("")
}

/** Chat: the leading system or developer message of `messages`. */
const chatOperations: PromptOperations<Body> = {
  mergeSystem(body, merge) {
    const [first, ...rest] = messagesOf(body)
    if (first === undefined || !isRecord(first) || (first.role !== "system" && first.role !== "developer"))
      return undefined
    return { ...body, messages: [{ ...first, content: mergeContent(first.content, merge) }, ...rest] }
  },
  prependSystem: (body, text) => ({
    ...body,
    messages: [{ role: "system", content: text }, ...messagesOf(body)],
  }),
  appendUser: (body, text) => ({ ...body, messages: [...messagesOf(body), { role: "user", content: text }] }),
}

/** Responses: `instructions` is the system message (template-safe, not inherited through `previous_response_id`). */
const responsesOperations: PromptOperations<Body> = {
  mergeSystem: (body, merge) => ({
    ...body,
    instructions: merge(typeof body.instructions === "string" ? body.instructions : ""),
  }),
  prependSystem: (body, text) => ({ ...body, instructions: text }),
  appendUser(body, text) {
    const item = { type: "message", role: "user", content: text }
    const input = body.input
    if (typeof input === "string") {
      return { ...body, input: [{ type: "message", role: "user", content: input }, item] }
    }
    return { ...body, input: [...(Array.isArray(input) ? input : []), item] }
  },
}

/**
 * The chat retry body: `body` with the instruction placed in `messages` by recovery's
 * `placeInstruction` (the original array and its messages are not mutated).
 */
export function chatRetryBody(body: Body, instruction: string, placement: "system" | "user"): Body {
  return placeInstruction(body, instruction, placement, chatOperations)
}

/**
 * The Responses retry body: the instruction appended to `instructions` (placement `"system"`) or
 * a user input item appended to `input` (placement `"user"`).
 */
export function responsesRetryBody(body: Body, instruction: string, placement: "system" | "user"): Body {
  return placeInstruction(body, instruction, placement, responsesOperations)
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
