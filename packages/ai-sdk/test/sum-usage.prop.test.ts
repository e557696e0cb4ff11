import type { LanguageModelV4Usage } from "@ai-sdk/provider"
import { fc, test } from "@fast-check/vitest"
import { sumUsage as sum } from "@tool-rescue/recovery/adapter"
import { describe, expect } from "vitest"

// Recovery's `sumUsage` on the AI SDK's usage shape, as the middleware calls it.
const sumUsage = (a: LanguageModelV4Usage, b: LanguageModelV4Usage) => sum(a, b, ["raw"])
const emptyUsage: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

const count = fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined })
const usage: fc.Arbitrary<LanguageModelV4Usage> = fc.record({
  inputTokens: fc.record({ total: count, noCache: count, cacheRead: count, cacheWrite: count }),
  outputTokens: fc.record({ total: count, text: count, reasoning: count }),
})

const totals = (u: LanguageModelV4Usage) => [u.inputTokens.total ?? 0, u.outputTokens.total ?? 0]

describe("sumUsage", () => {
  test.prop([usage])("emptyUsage is neutral", (u) => {
    expect(sumUsage(emptyUsage, u)).toEqual(u)
    expect(sumUsage(u, emptyUsage)).toEqual(u)
  })

  test.prop([usage, usage, usage])("associative and commutative", (a, b, c) => {
    expect(sumUsage(sumUsage(a, b), c)).toEqual(sumUsage(a, sumUsage(b, c)))
    expect(sumUsage(a, b)).toEqual(sumUsage(b, a))
  })

  test.prop([usage, usage])("counts add up; unknown only when both are unknown", (a, b) => {
    const sum = sumUsage(a, b)
    expect(totals(sum)).toEqual([totals(a)[0]! + totals(b)[0]!, totals(a)[1]! + totals(b)[1]!])
    expect(sum.inputTokens.total === undefined).toBe(
      a.inputTokens.total === undefined && b.inputTokens.total === undefined,
    )
  })
})
