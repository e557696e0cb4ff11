import { Prompt, type Response } from "effect/ai"
import { isToolCallErrorPart, type ToolCallErrorPart } from "./tool-call-error-part.ts"

/**
 * Effect's own `Prompt.fromResponseParts`, typed to also accept a response's content that may
 * hold {@link ToolCallErrorPart}s. It gives the same prompt as Effect's function: the content
 * already carries each error part's standard `tool-call` and failed `tool-result` parts, which
 * become the assistant's tool call and a failed tool result (the model sees the error and can
 * correct itself); the error part itself, which only describes them, is left out, as Effect's
 * function leaves out any part it does not know. Nothing is doubled.
 *
 * At run time `Prompt.fromResponseParts(response.content)` is enough (and `Chat` uses it), but its
 * TypeScript signature does not know the `tool-call-error` part type: with
 * `unknownToolCalls: "return"` this alias spares you a cast.
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
  for (const part of parts) if (!isToolCallErrorPart(part)) standard.push(part)
  return Prompt.fromResponseParts(standard)
}
