import type { LanguageModelV4Prompt } from "@ai-sdk/provider"
import { appendInstruction } from "@tool-rescue/recovery"

/**
 * Returns the retry prompt: the original prompt (which never holds the malformed response: the
 * middleware only ever sees the request, not its own answer) plus the host instruction.
 *
 * - `"system"` merges the instruction into the leading system message, or inserts one at the
 *   front. It never adds a second system message: Qwen3.5+ chat templates reject a system
 *   message that is not the first message (DESIGN.md, "Policy").
 * - `"user"` appends a user message.
 *
 * The input prompt is not mutated.
 */
export function placeInstruction(
  prompt: LanguageModelV4Prompt,
  instruction: string,
  placement: "system" | "user",
): LanguageModelV4Prompt {
  if (placement === "user") {
    return [...prompt, { role: "user", content: [{ type: "text", text: instruction }] }]
  }
  const first = prompt[0]
  if (first?.role === "system") {
    return [{ ...first, content: appendInstruction(first.content, instruction) }, ...prompt.slice(1)]
  }
  return [{ role: "system", content: instruction }, ...prompt]
}
