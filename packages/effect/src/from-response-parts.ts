import { Schema } from "effect"
import { AiError, Prompt, Response } from "effect/ai"
import { isToolCallErrorPart, type ToolCallErrorPart } from "./tool-call-error-part.ts"

const encodeAiError = Schema.encodeSync(AiError.AiError)

/**
 * `Prompt.fromResponseParts` that also understands {@link ToolCallErrorPart}s: each becomes the
 * assistant's tool call (its `params` as the model wrote them) and a failed tool result whose
 * value is the encoded `AiError`, the very result the Toolkit returns for a failed call under
 * `failureMode: "return"`. The model sees the error and can correct itself; no tool call is left
 * unanswered in the history. Every other part is handled by Effect's own `Prompt.fromResponseParts`.
 *
 * Effect's `Prompt.fromResponseParts` does not know `tool-call-error` parts (they are ours, not
 * Effect's; Effect-TS/effect #7574 would add them upstream): with `unknownToolCalls: "return"`,
 * use this function to append a response to a history.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Prompt } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const turn = (history: Prompt.Prompt) =>
 *   Effect.gen(function* () {
 *     const response = yield* ToolCallRecovery.generateText({ prompt: history, unknownToolCalls: "return" })
 *     return Prompt.concat(history, ToolCallRecovery.fromResponseParts(response.content))
 *   })
 * ```
 */
export function fromResponseParts(parts: ReadonlyArray<Response.AnyPart | ToolCallErrorPart>): Prompt.Prompt {
  const standard: Response.AnyPart[] = []
  for (const part of parts) {
    if (isToolCallErrorPart(part)) standard.push(...toolCallErrorAsParts(part))
    else standard.push(part)
  }
  return Prompt.fromResponseParts(standard)
}

/**
 * The two standard parts a {@link ToolCallErrorPart} stands for: the tool call and its failed
 * result. `Prompt.fromResponseParts` puts the call into the assistant message and the result into
 * the tool message, in order.
 */
export function toolCallErrorAsParts(part: ToolCallErrorPart): readonly [Response.AnyPart, Response.AnyPart] {
  const encodedResult = encodeAiError(part.error)
  return [
    Response.makePart("tool-call", {
      id: part.id,
      name: part.name,
      params: part.params,
      providerExecuted: false,
      metadata: part.metadata,
    }),
    Response.makePart("tool-result", {
      id: part.id,
      name: part.name,
      isFailure: true,
      result: part.error,
      encodedResult,
      providerExecuted: false,
      preliminary: false,
    }),
  ]
}
