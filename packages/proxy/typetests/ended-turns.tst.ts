import { describe, expect, test } from "tstyche"
import { createEndedTurns } from "../src/ended-turns.ts"

describe("EndedTurns", () => {
  test("remember takes the turn's shape: without it mayHold would never match and the bound would be off", () => {
    const turns = createEndedTurns()
    expect(turns.remember).type.toBeCallableWith("key", { spent: 1 }, "chat|a1.s2")
    expect(turns.remember).type.not.toBeCallableWith("key", { spent: 1 })
  })

  test("a remembered turn's error is the proxy's answer: a status and the protocol's error", () => {
    const turns = createEndedTurns()
    const error = { message: "again", type: "tool_call_recovery_error", code: "repeated-markup" }
    expect(turns.remember).type.toBeCallableWith(
      "key",
      { spent: 0, error: { status: 422, error } },
      "chat|a1",
    )
    expect(turns.remember).type.not.toBeCallableWith("key", { spent: 0, error: new Error("x") }, "chat|a1")
  })
})
