import { appendInstruction } from "@tool-rescue/recovery"
import { Prompt } from "effect/ai"

/**
 * The retry's prompt: the original prompt (never the malformed response) plus the host
 * instruction. `"system"` merges it into the leading system message, after a blank line, or
 * puts a new system message first when the prompt has none: Qwen3.5+ chat templates reject a
 * system message that is not first. (Effect's `Prompt.appendSystem` adds a second system
 * message instead of replacing the first, so it is not used.) `"user"` appends a user message.
 */
export function placeInstruction(
  prompt: Prompt.Prompt,
  instruction: string,
  placement: "system" | "user",
): Prompt.Prompt {
  if (placement === "user") {
    return Prompt.fromMessages([
      ...prompt.content,
      Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: instruction })] }),
    ])
  }
  const [first, ...rest] = prompt.content
  if (first?.role === "system") {
    const merged = Prompt.makeMessage("system", {
      content: appendInstruction(first.content, instruction),
      options: first.options,
    })
    return Prompt.fromMessages([merged, ...rest])
  }
  return Prompt.fromMessages([Prompt.makeMessage("system", { content: instruction }), ...prompt.content])
}
