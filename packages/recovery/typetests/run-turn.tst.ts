import {
  type NormalizedPart,
  type OutputPart,
  recoverToolCalls,
  runTurn,
  ToolCallRecoveryError,
  type ToolCallRecoveryErrorCode,
} from "@tool-rescue/recovery"
import { planTurn, type RecoverPlan, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { describe, expect, test } from "tstyche"

type Raw = { readonly chunk: number }

declare const plan: RecoverPlan

describe("runTurn", () => {
  test("runs a recover plan only", () => {
    const planned = planTurn(resolveRecoveryOptions({}), { tools: ["bash"] })
    const input = { attempt: async function* () {} }
    expect(runTurn).type.not.toBeCallableWith(planned, input)
    expect(runTurn).type.toBeCallableWith(plan, input)
  })

  test("yields OutputPart of the adapter's Raw type", () => {
    const parts = runTurn<Raw>(plan, {
      attempt: async function* (): AsyncGenerator<NormalizedPart<Raw>> {
        yield { type: "finish", raw: { chunk: 1 } }
      },
    })
    expect(parts).type.toBe<AsyncGenerator<OutputPart<Raw>, void, undefined>>()
  })

  test("Raw is inferred from the attempt", () => {
    const parts = runTurn(plan, {
      attempt: async function* () {
        yield { type: "other", raw: 42 } as NormalizedPart<number>
      },
    })
    expect(parts).type.toBe<AsyncGenerator<OutputPart<number>, void, undefined>>()
  })

  test("attempt-start carries the discarded raws", () => {
    type Start = Extract<OutputPart<Raw>, { type: "attempt-start" }>
    expect<Start["discarded"]>().type.toBe<readonly Raw[]>()
  })

  test("settlesOnAbort is a boolean", () => {
    const input = { attempt: async function* () {}, signal: new AbortController().signal }
    expect(runTurn).type.toBeCallableWith(plan, { ...input, settlesOnAbort: true })
    expect(runTurn).type.not.toBeCallableWith(plan, { ...input, settlesOnAbort: "yes" })
  })
})

describe("recoverToolCalls", () => {
  test("takes the tools and the raw options, yields what runTurn yields", () => {
    const parts = recoverToolCalls<Raw>({
      tools: ["bash"],
      attempt: async function* (): AsyncGenerator<NormalizedPart<Raw>> {
        yield { type: "finish", raw: { chunk: 1 } }
      },
      options: { maxRecoveries: 2 },
    })
    expect(parts).type.toBe<AsyncGenerator<OutputPart<Raw>, void, undefined>>()
  })

  test("options are checked", () => {
    expect(recoverToolCalls).type.not.toBeCallableWith({
      tools: [],
      attempt: async function* () {},
      options: { instructionPlacement: "assistant" },
    })
  })
})

describe("ToolCallRecoveryError", () => {
  test("isInstance narrows", () => {
    const error: unknown = undefined
    if (ToolCallRecoveryError.isInstance(error)) {
      expect(error.code).type.toBe<ToolCallRecoveryErrorCode>()
      expect(error.rounds).type.toBe<number>()
    }
  })
})
