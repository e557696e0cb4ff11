import { describe, expect, test } from "tstyche"
import {
  type NormalizedPart,
  type OutputPart,
  runTurn,
  ToolCallRecoveryError,
  type ToolCallRecoveryErrorCode,
} from "../src/index.ts"

type Raw = { readonly chunk: number }

describe("runTurn", () => {
  test("yields OutputPart of the adapter's Raw type", () => {
    const parts = runTurn<Raw>({
      tools: ["bash"],
      attempt: async function* (): AsyncGenerator<NormalizedPart<Raw>> {
        yield { type: "finish", raw: { chunk: 1 } }
      },
    })
    expect(parts).type.toBe<AsyncGenerator<OutputPart<Raw>, void, undefined>>()
  })

  test("Raw is inferred from the attempt", () => {
    const parts = runTurn({
      tools: [],
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
    const input = { tools: [], attempt: async function* () {}, signal: new AbortController().signal }
    expect(runTurn).type.toBeCallableWith({ ...input, settlesOnAbort: true })
    expect(runTurn).type.not.toBeCallableWith({ ...input, settlesOnAbort: "yes" })
  })

  test("options are checked", () => {
    expect(runTurn).type.not.toBeCallableWith({
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
