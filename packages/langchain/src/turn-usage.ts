/**
 * Usage summed over the attempts of one call: the usage of a malformed attempt (never shown) is
 * added to the usage the final attempt reports, so the turn reports what it cost.
 *
 * NOTE: usage summing belongs in `recovery`'s turn planner (DESIGN.md); this is the LangChain
 * mapping of that rule until the planner lands. `mergeUsageMetadata` is LangChain's own sum.
 */
import { mergeUsageMetadata, type UsageMetadata } from "@langchain/core/messages"

/** Accumulates the usage of discarded attempts. */
export interface TurnUsage {
  /** Adds the usage of a discarded attempt. */
  discard(usage: UsageMetadata | undefined): void
  /** `usage` plus everything discarded so far (then forgotten: it is reported once). */
  settle(usage: UsageMetadata | undefined): UsageMetadata | undefined
  /** Usage discarded and not yet settled. */
  readonly pending: UsageMetadata | undefined
}

/** A fresh accumulator for one call. */
export function createTurnUsage(): TurnUsage {
  let pending: UsageMetadata | undefined
  return {
    discard(usage) {
      if (usage !== undefined) pending = pending === undefined ? usage : mergeUsageMetadata(pending, usage)
    },
    settle(usage) {
      if (pending === undefined) return usage
      const sum = usage === undefined ? pending : mergeUsageMetadata(pending, usage)
      pending = undefined
      return sum
    },
    get pending() {
      return pending
    },
  }
}

/** `llmOutput.tokenUsage` (the older per-call usage shape) with the discarded usage added. */
export function settleTokenUsage(
  llmOutput: Record<string, unknown> | undefined,
  discarded: readonly UsageMetadata[],
): Record<string, unknown> | undefined {
  const tokenUsage = llmOutput?.tokenUsage
  if (discarded.length === 0 || typeof tokenUsage !== "object" || tokenUsage === null) return llmOutput
  const sum = { ...(tokenUsage as Record<string, number | undefined>) }
  for (const usage of discarded) {
    sum.promptTokens = (sum.promptTokens ?? 0) + usage.input_tokens
    sum.completionTokens = (sum.completionTokens ?? 0) + usage.output_tokens
    sum.totalTokens = (sum.totalTokens ?? 0) + usage.total_tokens
  }
  return { ...llmOutput, tokenUsage: sum }
}
