import type { LanguageModelV4Prompt } from "@ai-sdk/provider"
import type { PromptOperations } from "@tool-rescue/recovery/adapter"

/**
 * The V4 prompt operations `placeInstruction` of `@tool-rescue/recovery` places a retry's
 * instruction with. A V4 system message's content is a plain string. The prompt is never
 * mutated.
 */
export const promptOperations: PromptOperations<LanguageModelV4Prompt> = {
  mergeSystem(prompt, merge) {
    const first = prompt[0]
    if (first?.role !== "system") return undefined
    return [{ ...first, content: merge(first.content) }, ...prompt.slice(1)]
  },
  prependSystem: (prompt, text) => [{ role: "system", content: text }, ...prompt],
  appendUser: (prompt, text) => [...prompt, { role: "user", content: [{ type: "text", text }] }],
}
