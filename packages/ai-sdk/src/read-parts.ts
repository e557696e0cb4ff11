import type { LanguageModelV4StreamPart } from "@ai-sdk/provider"
import type { NormalizedPart } from "@tool-rescue/recovery"

type Part = LanguageModelV4StreamPart

/**
 * Maps one V4 stream part to the part model of `@tool-rescue/recovery`. Only deltas carry text;
 * `*-start`/`*-end` travel as `other` so that the splicer can frame the text recovery releases.
 * An `error` part and a `finish` with reason `error` are `failed`: the provider reported an
 * `{"error": …}` chunk, malformed SSE JSON or a stream cut without a finish
 * (`@ai-sdk/openai-compatible` reports all three this way), and a failed attempt is never retried.
 */
export function toNormalizedPart(part: Part): NormalizedPart<Part> {
  switch (part.type) {
    case "text-delta":
      return { type: "text", text: part.delta, id: part.id, raw: part }
    case "reasoning-delta":
      return { type: "reasoning", text: part.delta, id: part.id, raw: part }
    case "tool-call":
      return { type: "tool-call", toolName: part.toolName, params: part.input, raw: part }
    case "tool-result":
      // A provider-executed tool's result (its call may be in an earlier response): the provider
      // acted, so the response counts as one with a call and is never retried (a retry would
      // have it act again).
      return { type: "tool-call", toolName: part.toolName, raw: part }
    case "finish":
      if (part.finishReason.unified === "error") return { type: "finish", raw: part, failed: true }
      // The output limit: markup still open then is a call cut off (`truncated-call`).
      return part.finishReason.unified === "length"
        ? { type: "finish", raw: part, truncated: true }
        : { type: "finish", raw: part }
    case "error":
      return { type: "other", raw: part, failed: true }
    default:
      return { type: "other", raw: part }
  }
}

/** The parts of one attempt, with a way to stop reading them from outside. */
export interface AttemptParts extends AsyncIterableIterator<NormalizedPart<Part>> {
  /**
   * Cancels the provider stream. A `next()` pending on it (or made later) rejects with an
   * `AbortError` rather than ending normally: a cut-off response must never look complete, or it
   * would be judged (and perhaps retried) like one.
   */
  cancel(reason?: unknown): void
}

/**
 * Reads a provider stream as normalized parts, calling `onFinish` with each `finish` part seen.
 *
 * A hand-written iterator over a reader, not an async generator and not `for await` over the
 * stream: it is on the path of every delta (a generator adds a resume and a promise per part),
 * and `ReadableStream` is not async-iterable in every runtime the AI SDK runs on. `return()`
 * (the turn ends early) cancels the stream, which aborts the provider's HTTP response.
 */
export function readParts(
  stream: ReadableStream<Part>,
  onFinish: (part: Extract<Part, { type: "finish" }>) => void,
): AttemptParts {
  const reader = stream.getReader()
  let done = false
  let cancelled: unknown
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined }
  type Step = IteratorResult<NormalizedPart<Part>, undefined>
  // Shared callbacks for `read().then(…)`: no closure and no async-function frame per part.
  const onRead = (next: Awaited<ReturnType<typeof reader.read>>): Step => {
    // Checked after the read: `cancel()` resolves a pending read as if the stream had ended.
    if (cancelled !== undefined) throw cancelled
    if (next.done) {
      done = true
      return finished
    }
    const part = next.value
    if (part.type === "finish") onFinish(part)
    return { done: false, value: toNormalizedPart(part) }
  }
  const onError = (error: unknown): never => {
    done = true
    throw error
  }
  return {
    next(): Promise<Step> {
      if (cancelled !== undefined) return Promise.reject(cancelled)
      if (done) return Promise.resolve(finished)
      return reader.read().then(onRead, onError)
    },
    async return() {
      if (!done) {
        done = true
        await reader.cancel().catch(() => undefined)
      }
      return finished
    },
    cancel(reason) {
      if (cancelled !== undefined) return
      cancelled = abortError(reason)
      if (!done) {
        done = true
        reader.cancel(reason).catch(() => undefined)
      }
    },
    [Symbol.asyncIterator]() {
      return this
    },
  }
}

function abortError(reason: unknown): Error {
  if (reason instanceof Error && reason.name === "AbortError") return reason
  const error = new Error("tool-rescue: the consumer cancelled the stream", { cause: reason })
  error.name = "AbortError"
  return error
}
