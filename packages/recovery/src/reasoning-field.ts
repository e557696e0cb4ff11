/**
 * The fields of an OpenAI-compatible chat message or delta that carry reasoning text, in the
 * order they are read: `reasoning_content` (DeepSeek, vLLM < 0.11, llama.cpp, SGLang),
 * `reasoning` (vLLM ≥ 0.11, OpenRouter, Ollama's OpenAI API), `thinking` (Ollama's native API,
 * some proxies).
 *
 * @example
 * ```ts
 * import { reasoningFields } from "./reasoning-field.ts"
 *
 * reasoningFields.includes("thinking") // true
 * ```
 */
export const reasoningFields: readonly ["reasoning_content", "reasoning", "thinking"] = [
  "reasoning_content",
  "reasoning",
  "thinking",
]

/**
 * A field name of {@link reasoningFields}.
 *
 * @example
 * ```ts
 * import type { ReasoningField } from "@tool-rescue/recovery/adapter"
 *
 * const field: ReasoningField = "reasoning_content"
 * ```
 */
export type ReasoningField = (typeof reasoningFields)[number]

/**
 * The reasoning field a message or delta carries: the first of {@link reasoningFields} whose
 * value is a string, or `undefined`. Every adapter and the CLI's `scan` read reasoning through
 * it, so they agree on which text is reasoning.
 *
 * @example
 * ```ts
 * import { reasoningField } from "@tool-rescue/recovery/adapter"
 *
 * reasoningField({ role: "assistant", content: "", thinking: "Let me look." }) // "thinking"
 * reasoningField({ content: "Hi" }) // undefined
 * ```
 */
export function reasoningField(
  message: Readonly<Record<string, unknown>> | undefined,
): ReasoningField | undefined {
  if (message === undefined) return undefined
  for (const field of reasoningFields) {
    if (typeof message[field] === "string") return field
  }
  return undefined
}
