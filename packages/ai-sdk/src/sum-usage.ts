import type { LanguageModelV4Usage } from "@ai-sdk/provider"

/** Adds two token counts; `undefined` (not reported) only when neither side reported one. */
function add(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : a + b
}

/**
 * The usage of a step whose response took more than one model call: every attempt consumed
 * tokens, so the step reports their sum. `raw` is the provider's own object and cannot be summed:
 * the last attempt's is kept.
 */
export function sumUsage(a: LanguageModelV4Usage, b: LanguageModelV4Usage): LanguageModelV4Usage {
  const usage: LanguageModelV4Usage = {
    inputTokens: {
      total: add(a.inputTokens.total, b.inputTokens.total),
      noCache: add(a.inputTokens.noCache, b.inputTokens.noCache),
      cacheRead: add(a.inputTokens.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: add(a.inputTokens.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: add(a.outputTokens.total, b.outputTokens.total),
      text: add(a.outputTokens.text, b.outputTokens.text),
      reasoning: add(a.outputTokens.reasoning, b.outputTokens.reasoning),
    },
  }
  const raw = b.raw ?? a.raw
  return raw === undefined ? usage : { ...usage, raw }
}

/** Usage with every count unknown: the neutral element of {@link sumUsage}. */
export const emptyUsage: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}
