/**
 * A property over generated multi-step turns through the real `runTools()` over HTTP: whatever
 * the model answers at each step (a leak, a structured call, a plain answer), recoveries per
 * turn stay within `maxRecoveries`, no tool result is duplicated and no call is left
 * unanswered. The oracle is an independent model of the turn contract.
 */
import { fc, test } from "@fast-check/vitest"
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import type { ReplayStep } from "@tool-rescue/testing"
import { describe, expect } from "vitest"
import { cleanUp, deleteTool } from "./support/delete-tool.ts"
import { harness } from "./support/harness.ts"

type Answer = "leak" | "call" | "answer"

const LEAK =
  "Deleting it.\n<function=delete_file>\n<parameter=path>\nold.log\n</parameter>\n</function>\n</tool_call>"

/** The turn contract: requests made, recoveries, tools run, and whether the turn fails. */
function oracle(answers: readonly Answer[], maxRecoveries: number) {
  let budget = maxRecoveries
  let requests = 0
  let executed = 0
  for (const answer of answers) {
    requests++
    if (answer === "leak") {
      if (budget === 0) return { requests, recoveries: maxRecoveries, executed, failed: true }
      budget--
      continue
    }
    if (answer === "answer") break
    executed++
  }
  return { requests, recoveries: maxRecoveries - budget, executed, failed: false }
}

function step(answer: Answer, index: number): ReplayStep {
  switch (answer) {
    case "leak":
      return { content: LEAK, chunkSize: 7 }
    case "call":
      return {
        toolCalls: [
          { name: "delete_file", arguments: JSON.stringify({ path: `f${index}` }), id: `call_${index}` },
        ],
      }
    case "answer":
      return { content: "Done." }
    default:
      return answer satisfies never
  }
}

const answers = fc.array(fc.constantFrom<Answer>("leak", "call", "answer"), { minLength: 1, maxLength: 6 })

describe("generated runTools turns", () => {
  test.prop([answers, fc.integer({ min: 0, max: 2 }), fc.boolean()], { numRuns: 12 })(
    "recoveries per turn ≤ maxRecoveries, no tool result duplicated, no call unanswered",
    async (generated, maxRecoveries, stream) => {
      const script: Answer[] = [...generated, "answer"]
      const expected = oracle(script, maxRecoveries)
      const events: RecoveryEvent[] = []
      const { client, server } = await harness(
        script.map((answer, index) => step(answer, index)),
        { maxRecoveries, onEvent: (event) => events.push(event) },
      )
      const { tool, ran } = deleteTool()
      const runner = cleanUp(client, tool, stream)
      const error = await runner.done().then(
        () => undefined,
        (e: unknown) => e,
      )
      const cause = isToolCallRecoveryError(error) ? error : (error as { cause?: unknown } | undefined)?.cause
      const recoveries = events.filter((event) => event.type === "recovery-started").length
      expect(recoveries).toBeLessThanOrEqual(maxRecoveries)
      expect(recoveries).toBe(expected.recoveries)
      expect(server.requests).toHaveLength(expected.requests)
      expect(isToolCallRecoveryError(cause) && cause.code === "repeated-markup").toBe(expected.failed)
      expect(new Set(ran).size).toBe(ran.length)
      expect(ran).toHaveLength(expected.executed)
      // Every call in the history is answered exactly once.
      const calls = runner.messages.flatMap((m) =>
        m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : [],
      )
      const answered = runner.messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []))
      expect(new Set(answered).size).toBe(answered.length)
      expect([...answered].sort()).toEqual([...calls].sort())
    },
  )
})
