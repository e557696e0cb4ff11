import { describe, expect, test } from "vitest"
import { turnMarkOf, turnRecoveries, withTurnMark } from "../src/adapter.ts"

describe("the turn mark as metadata", () => {
  test("withTurnMark adds the mark and keeps every other key; turnMarkOf reads it back", () => {
    const metadata = { openai: { itemId: "msg_1" } }
    const marked = withTurnMark(metadata, 2)
    expect(marked).toEqual({ openai: { itemId: "msg_1" }, toolRescue: { recoveries: 2 } })
    expect(metadata).toEqual({ openai: { itemId: "msg_1" } }) // not mutated
    expect(turnMarkOf(marked)).toBe(2)
    expect(withTurnMark(undefined, 1)).toEqual({ toolRescue: { recoveries: 1 } })
  })

  test("turnMarkOf assumes nothing about metadata from outside: no count is 0", () => {
    for (const metadata of [
      undefined,
      null,
      "toolRescue",
      {},
      { toolRescue: null },
      { toolRescue: 1 },
      { toolRescue: { recoveries: "1" } },
      { toolRescue: { recoveries: Number.NaN } },
      { toolRescue: { recoveries: -1 } },
      { toolRescue: { recoveries: 1.5 } },
    ]) {
      expect(turnMarkOf(metadata)).toBe(0)
    }
  })

  test("with turnRecoveries: the largest mark after the last user message", () => {
    type Message = { readonly role: string; readonly metadata?: unknown }
    const history: Message[] = [
      { role: "user" },
      { role: "assistant", metadata: withTurnMark({}, 3) },
      { role: "user" },
      { role: "assistant", metadata: withTurnMark({ other: {} }, 1) },
      { role: "tool", metadata: { toolRescue: { recoveries: Number.NaN } } },
    ]
    const reader = {
      startsTurn: (m: Message) => m.role === "user",
      recoveries: (m: Message) => turnMarkOf(m.metadata),
    }
    expect(turnRecoveries(history, reader)).toBe(1)
  })
})
