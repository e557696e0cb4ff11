import type { MarkupReason, RecoveryEvent } from "@tool-rescue/recovery"
import { describe, expect, test } from "tstyche"
import { planTurn, resolveRecoveryOptions, sumUsage, type TurnPlan } from "../src/adapter.ts"

describe("planTurn", () => {
  test("returns a TurnPlan that narrows on kind", () => {
    const plan = planTurn(resolveRecoveryOptions({}), { tools: ["bash"] })
    expect(plan).type.toBe<TurnPlan>()
    if (plan.kind === "recover") expect(plan.budget).type.toBe<number>()
    else expect(plan).type.not.toHaveProperty("budget")
  })

  test("toolChoice takes only the known kinds", () => {
    expect(planTurn).type.not.toBeCallableWith(resolveRecoveryOptions({}), { tools: [], toolChoice: "never" })
  })
})

describe("markup-detected", () => {
  test("carries a typed reason", () => {
    type Detected = Extract<RecoveryEvent, { type: "markup-detected" }>
    expect<Detected["reason"]>().type.toBe<MarkupReason>()
  })
})

describe("sumUsage", () => {
  test("keeps the framework's usage type", () => {
    type Usage = { prompt_tokens: number; details?: { cached_tokens?: number } }
    const usage: Usage = { prompt_tokens: 1 }
    expect(sumUsage(undefined, usage)).type.toBe<Usage>()
    expect(sumUsage(usage, usage, ["details"])).type.toBe<Usage>()
  })
})
