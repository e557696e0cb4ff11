import { appendInstruction } from "./instruction.ts"

/**
 * The small operations on one framework's prompt that {@link placeInstruction} needs. Each
 * returns a new prompt; the input is never mutated.
 *
 * @example
 * ```ts
 * import type { PromptOperations } from "@tool-rescue/recovery/adapter"
 *
 * type Message = { role: "system" | "user" | "assistant"; content: string }
 * const operations: PromptOperations<Message[]> = {
 *   mergeSystem: (prompt, merge) => {
 *     const [first, ...rest] = prompt
 *     return first?.role === "system" ? [{ ...first, content: merge(first.content) }, ...rest] : undefined
 *   },
 *   prependSystem: (prompt, text) => [{ role: "system", content: text }, ...prompt],
 *   appendUser: (prompt, text) => [...prompt, { role: "user", content: text }],
 * }
 * ```
 */
export interface PromptOperations<Prompt> {
  /**
   * The prompt with the leading system message's text replaced by `merge(text)`, or `undefined`
   * when the prompt does not start with a system message. (Responses `instructions` always
   * merge; a message whose content is a list of parts may append `merge("")` as a part.)
   */
  readonly mergeSystem: (prompt: Prompt, merge: (text: string) => string) => Prompt | undefined
  /** The prompt with a new system message holding `text` first. */
  readonly prependSystem: (prompt: Prompt, text: string) => Prompt
  /** The prompt with a final user message holding `text`. */
  readonly appendUser: (prompt: Prompt, text: string) => Prompt
}

/**
 * Places the instruction of a retry in the retry's prompt, the one rule every adapter follows
 * (ARCHITECTURE.md#policy):
 * - `"system"` merges it into the leading system message, after a blank line
 *   ({@link appendInstruction}), or puts a new system message first when there is none. Never a
 *   second, later system message: Qwen3.5+ chat templates reject a system message that is not
 *   the first (vLLM answers 400, llama.cpp 500).
 * - `"user"` appends a user message.
 *
 * The prompt is the original request's: it never holds the malformed response.
 *
 * @example
 * ```ts
 * import { placeInstruction } from "@tool-rescue/recovery/adapter"
 *
 * const operations = {
 *   mergeSystem: (prompt: string[], merge: (text: string) => string) =>
 *     prompt[0]?.startsWith("system:") ? [`system:${merge(prompt[0].slice(7))}`, ...prompt.slice(1)] : undefined,
 *   prependSystem: (prompt: string[], text: string) => [`system:${text}`, ...prompt],
 *   appendUser: (prompt: string[], text: string) => [...prompt, `user:${text}`],
 * }
 * placeInstruction(["system:Be brief.", "user:Hi"], "Use real tool calls.", "system", operations)
 * // ["system:Be brief.\n\nUse real tool calls.", "user:Hi"]
 * ```
 */
export function placeInstruction<Prompt>(
  prompt: Prompt,
  instruction: string,
  placement: "system" | "user",
  operations: PromptOperations<Prompt>,
): Prompt {
  if (placement === "user") return operations.appendUser(prompt, instruction)
  return (
    operations.mergeSystem(prompt, (text) => appendInstruction(text, instruction)) ??
    operations.prependSystem(prompt, instruction)
  )
}
