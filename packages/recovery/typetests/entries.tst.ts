import type * as root from "@tool-rescue/recovery"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import type * as kit from "@tool-rescue/recovery/adapter"
import {
  createMarkupOutcomes,
  type HistoryReader,
  isRetryRequest,
  type MarkupOutcomes,
  type RecoveryOutcome,
  turnRecoveries,
} from "@tool-rescue/recovery/adapter"
import { describe, expect, test } from "tstyche"

// The two entries, through the package's `exports` map: users import the root, adapters the kit. A
// name in the wrong entry is a type error here (and consumer/ names every export through the dist).
describe("@tool-rescue/recovery", () => {
  test("has what users call, and none of the adapters' kit", () => {
    expect<typeof root>().type.toHaveProperty("runTurn")
    expect<typeof root>().type.toHaveProperty("ToolCallRecoveryError")
    expect<typeof root>().type.toHaveProperty("isToolCallRecoveryError")
    expect<typeof root>().type.toHaveProperty("defaultInstruction")
    expect<typeof root>().type.not.toHaveProperty("planTurn")
    expect<typeof root>().type.not.toHaveProperty("turnRecoveries")
    expect<typeof root>().type.not.toHaveProperty("placeInstruction")
    expect<typeof root>().type.not.toHaveProperty("sumUsage")
    expect<typeof root>().type.not.toHaveProperty("retryId")
    expect<typeof root>().type.not.toHaveProperty("isRetryRequest")
  })
})

describe("@tool-rescue/recovery/adapter", () => {
  test("has the kit, and leaves the users' API to the root", () => {
    expect<typeof kit>().type.toHaveProperty("planTurn")
    expect<typeof kit>().type.toHaveProperty("turnRecoveries")
    expect<typeof kit>().type.toHaveProperty("placeInstruction")
    expect<typeof kit>().type.toHaveProperty("sumUsage")
    expect<typeof kit>().type.toHaveProperty("retryId")
    expect<typeof kit>().type.toHaveProperty("isRetryRequest")
    expect<typeof kit>().type.toHaveProperty("errorCodeOutcomes")
    expect<typeof kit>().type.toHaveProperty("createMarkupOutcomes")
    expect<typeof kit>().type.not.toHaveProperty("runTurn")
    expect<typeof kit>().type.not.toHaveProperty("ToolCallRecoveryError")
  })

  test("createMarkupOutcomes counts by format and outcome, and reads recovery events", () => {
    const outcomes = createMarkupOutcomes((format, outcome) => void [format, outcome])
    expect(outcomes).type.toBe<MarkupOutcomes>()
    expect(outcomes.record).type.toBe<(event: RecoveryEvent) => void>()
    expect(createMarkupOutcomes).type.toBeCallableWith(
      (format: string, outcome: RecoveryOutcome) => void [format, outcome],
    )
    expect(createMarkupOutcomes).type.not.toBeCallableWith((format: number) => void format)
  })

  test("isRetryRequest reads any request shape and answers a boolean", () => {
    expect(isRetryRequest).type.toBe<(request: unknown) => boolean>()
  })

  test("a HistoryReader reads the turn mark of any message type", () => {
    type Message = { readonly role: string; readonly recovered?: number }
    const reader: HistoryReader<Message> = {
      startsTurn: (message) => message.role === "user",
      recoveries: (message) => message.recovered ?? 0,
    }
    expect(turnRecoveries([{ role: "user" }], reader)).type.toBe<number>()
    expect(turnRecoveries).type.not.toBeCallableWith([{ role: 1 }], reader)
  })
})
