/**
 * A property over generated multi-step turns, through the real `streamText` / `generateText`
 * with `stopWhen`: whatever the model answers at each step (a leak, a structured call, a plain
 * answer), recoveries per turn stay within `maxRecoveries`, no tool result is duplicated and no
 * call is left unanswered. The oracle is an independent model of the turn contract.
 */
import { fc, test } from "@fast-check/vitest"
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from "ai"
import { describe, expect } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import { QWEN_LEAK, type Reply, scriptedModel } from "./fixtures.ts"

type Answer = "leak" | "call" | "answer"

/** The turn contract: which replies are consumed, how many recoveries, and whether the turn fails. */
function oracle(answers: readonly Answer[], maxRecoveries: number, maxSteps: number) {
  let budget = maxRecoveries
  let calls = 0
  let steps = 0
  let executed = 0
  for (const answer of answers) {
    calls++
    if (answer === "leak") {
      if (budget === 0) return { calls, recoveries: maxRecoveries - budget, executed, failed: true }
      budget--
      continue
    }
    steps++
    if (answer === "answer") break
    executed++
    if (steps === maxSteps) break
  }
  return { calls, recoveries: maxRecoveries - budget, executed, failed: false }
}

function replies(answers: readonly Answer[]): Reply[] {
  return answers.map((answer, index): Reply => {
    switch (answer) {
      case "leak":
        return { text: [QWEN_LEAK.slice(0, 20), QWEN_LEAK.slice(20)], responseId: `r${index}` }
      case "call":
        return {
          calls: [{ toolName: "Glob", input: { pattern: `${index}` }, id: `call-${index}` }],
          responseId: `r${index}`,
        }
      case "answer":
        return { text: ["Done."], responseId: `r${index}` }
      default:
        return answer satisfies never
    }
  })
}

/** Tool calls and tool results in the turn's history: each call answered once. */
function answeredOnce(messages: readonly ModelMessage[]): void {
  const calls: string[] = []
  const results: string[] = []
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content) {
      if (part.type === "tool-call") calls.push(part.toolCallId)
      if (part.type === "tool-result") results.push(part.toolCallId)
    }
  }
  expect(new Set(results).size).toBe(results.length)
  expect([...results].sort()).toEqual([...calls].sort())
}

const answers = fc.array(fc.constantFrom<Answer>("leak", "call", "answer"), { minLength: 1, maxLength: 8 })

describe("generated multi-step turns", () => {
  test.prop([answers, fc.integer({ min: 0, max: 2 }), fc.boolean()], { numRuns: 30 })(
    "recoveries per turn ≤ maxRecoveries, no tool result duplicated, no call unanswered",
    async (generated, maxRecoveries, stream) => {
      // Ends with a plain answer, so that the model never runs out of script.
      const script: Answer[] = [...generated, "answer"]
      const maxSteps = 6
      const expected = oracle(script, maxRecoveries, maxSteps)
      const model = scriptedModel(replies(script))
      const events: RecoveryEvent[] = []
      const executed: string[] = []
      const options = {
        model: wrapLanguageModel({
          model,
          middleware: toolCallRecoveryMiddleware({ maxRecoveries, onEvent: (event) => events.push(event) }),
        }),
        prompt: "List the files.",
        tools: {
          Glob: tool({
            inputSchema: z.object({ pattern: z.string() }),
            execute: async ({ pattern }) => {
              executed.push(pattern)
              return "ok"
            },
          }),
        },
        stopWhen: isStepCount(maxSteps),
        maxRetries: 0,
      }
      let error: unknown
      let messages: readonly ModelMessage[] = []
      if (stream) {
        const result = streamText({
          ...options,
          onError: ({ error: e }) => {
            error = e
          },
        })
        await result.consumeStream()
        messages = (await result.response).messages
      } else {
        try {
          messages = (await generateText(options)).response.messages
        } catch (e) {
          error = e
        }
      }
      const recoveries = events.filter((event) => event.type === "recovery-started").length
      expect(recoveries).toBeLessThanOrEqual(maxRecoveries)
      expect(recoveries).toBe(expected.recoveries)
      expect(model.doStreamCalls.length + model.doGenerateCalls.length).toBe(expected.calls)
      expect(new Set(executed).size).toBe(executed.length)
      expect(executed).toHaveLength(expected.executed)
      expect(isToolCallRecoveryError(error) && error.code === "repeated-markup").toBe(expected.failed)
      answeredOnce(messages)
    },
  )
})
