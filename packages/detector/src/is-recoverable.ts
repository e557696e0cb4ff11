import type { Markup, Policy } from "./types.ts"

/**
 * Applies the recovery policy (ARCHITECTURE.md#policy) to one markup: may a retry be spent on it?
 *
 * - It must name an offered tool.
 * - `evidence: "structure"` (default): an envelope marker (opening or closing) **or** inner call
 *   structure; `"envelope"`: an envelope marker is required (the strict rule).
 * - `reasoning: "auto"` (default): markup inside reasoning counts only when no visible answer
 *   follows that reasoning block (a rehearsal never causes a retry); `"ignore"`: never;
 *   `"recover"`: always.
 *
 * @param markup - a markup reported by a detector.
 * @param policy - the policy; defaults `{ evidence: "structure", reasoning: "auto" }`.
 * @example
 * ```ts
 * import { isRecoverable, scan } from "@tool-rescue/detector"
 *
 * const { markup } = scan("<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>", {
 *   tools: ["read_file"],
 * })
 * isRecoverable(markup[0]!) // true: offered, inner structure
 * isRecoverable(markup[0]!, { evidence: "envelope" }) // false: neither <tool_call> nor </tool_call>
 * ```
 */
export function isRecoverable(markup: Markup, policy: Policy = {}): boolean {
  if (!markup.offered) return false
  const evidence = policy.evidence ?? "structure"
  const envelope = markup.opening || markup.closing
  if (!(envelope || (evidence === "structure" && markup.structured))) return false
  if (!markup.inReasoning) return true
  const reasoning = policy.reasoning ?? "auto"
  switch (reasoning) {
    case "recover":
      return true
    case "ignore":
      return false
    case "auto":
      return !markup.answerFollows
    default:
      return reasoning satisfies never
  }
}
