import type { LanguageModelV4StreamPart } from "@ai-sdk/provider"
import type { NormalizedPart } from "@tool-rescue/recovery"

type Part = LanguageModelV4StreamPart

/**
 * Maps one V4 stream part to the part model of `@tool-rescue/recovery`. Only deltas carry text;
 * `*-start`/`*-end` travel as `other` so that the splicer can frame the text recovery releases.
 */
export function toNormalizedPart(part: Part): NormalizedPart<Part> {
  switch (part.type) {
    case "text-delta":
      return { type: "text", text: part.delta, id: part.id, raw: part }
    case "reasoning-delta":
      return { type: "reasoning", text: part.delta, id: part.id, raw: part }
    case "tool-call":
      return { type: "tool-call", toolName: part.toolName, params: part.input, raw: part }
    case "finish":
      return { type: "finish", raw: part }
    default:
      return { type: "other", raw: part }
  }
}

/**
 * Reads a provider stream as normalized parts, calling `onFinish` with each `finish` part seen.
 * Uses a reader rather than `for await` over the stream: `ReadableStream` is not async-iterable
 * in every runtime the AI SDK runs on. Stopping early (a `return()` from the consumer) cancels
 * the stream, which aborts the provider's HTTP response.
 */
export async function* readParts(
  stream: ReadableStream<Part>,
  onFinish: (part: Extract<Part, { type: "finish" }>) => void,
): AsyncGenerator<NormalizedPart<Part>, void, undefined> {
  const reader = stream.getReader()
  let done = false
  try {
    while (true) {
      const next = await reader.read()
      if (next.done) {
        done = true
        return
      }
      const part = next.value
      if (part.type === "finish") onFinish(part)
      yield toNormalizedPart(part)
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
