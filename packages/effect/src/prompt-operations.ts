import type { PromptOperations } from "@tool-rescue/recovery/adapter"
import { Prompt } from "effect/ai"

/**
 * Effect's prompt as `@tool-rescue/recovery`'s `placeInstruction` edits it. A system message's
 * content is a string, so the instruction merges into it; Effect's `Prompt.appendSystem` would
 * add a second system message instead, which Qwen3.5+ chat templates reject.
 */
export const promptOperations: PromptOperations<Prompt.Prompt> = {
  mergeSystem: (prompt, merge) => {
    const [first, ...rest] = prompt.content
    if (first?.role !== "system") return undefined
    const merged = Prompt.makeMessage("system", { content: merge(first.content), options: first.options })
    return Prompt.fromMessages([merged, ...rest])
  },
  prependSystem: (prompt, text) =>
    Prompt.fromMessages([Prompt.makeMessage("system", { content: text }), ...prompt.content]),
  appendUser: (prompt, text) =>
    Prompt.fromMessages([
      ...prompt.content,
      Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text })] }),
    ]),
}
