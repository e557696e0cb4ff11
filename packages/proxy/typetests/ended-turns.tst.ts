import { describe, expect, test } from "tstyche"
import { EndedTurns } from "../src/ended-turns.ts"

describe("EndedTurns", () => {
  test("set takes the turn's shape: without it mayHold would never match and the bound would be off", () => {
    const turns = new EndedTurns()
    expect(turns.set).type.toBeCallableWith("key", { recoveries: 1 }, "chat|a1.s2")
    expect(turns.set).type.not.toBeCallableWith("key", { recoveries: 1 })
  })
})
