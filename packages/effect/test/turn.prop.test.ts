/**
 * A property over generated agent turns through Effect's real `Chat`: one user message, then the
 * tool loop (`chat.generateText` / `chat.streamText` with an empty prompt while the model calls
 * tools). Whatever the model answers at each call (a leak, a structured call, a plain answer),
 * recoveries per turn stay within `maxRecoveries`, no tool result is duplicated and no call is
 * left unanswered. The oracle is an independent model of the turn contract.
 */
import { assert, describe, it } from "@effect/vitest"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { Effect, Ref, Stream } from "effect"
import { Chat, type Prompt, type Response } from "effect/ai"
import fc from "fast-check"
import { isToolCallRecoveryError, ToolCallRecovery } from "../src/index.ts"
import type { Mode } from "./support/fixtures.ts"
import { fileHandlers, files, qwenLeak, textStream } from "./support/leaks.ts"
import { finish, scriptedModel } from "./support/scripted-model.ts"

type Answer = "leak" | "call" | "answer"

/** The turn contract: the model calls made, the recoveries, the handlers run, and whether it fails. */
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

const leakText = `Let me check that. ${qwenLeak}`

function generated(answer: Answer, index: number): Response.PartEncoded[] {
  switch (answer) {
    case "leak":
      return [{ type: "text", text: leakText }, finish()]
    case "call":
      return [
        { type: "tool-call", id: `call_${index}`, name: "read_file", params: { path: `f${index}` } },
        finish("tool-calls"),
      ]
    case "answer":
      return [{ type: "text", text: "Done." }, finish()]
    default:
      return answer satisfies never
  }
}

function streamed(answer: Answer, index: number): Response.StreamPartEncoded[][] {
  switch (answer) {
    case "leak":
      return textStream([leakText.slice(0, 25), leakText.slice(25)], `t${index}`)
    case "call":
      return [
        [{ type: "tool-call", id: `call_${index}`, name: "read_file", params: { path: `f${index}` } }],
        [finish("tool-calls")],
      ]
    case "answer":
      return textStream(["Done."], `t${index}`)
    default:
      return answer satisfies never
  }
}

/** The history's tool calls and results: each call answered exactly once. */
function answeredOnce(history: Prompt.Prompt): void {
  const calls: string[] = []
  const results: string[] = []
  for (const message of history.content) {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call") calls.push(part.id)
    } else if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-result") results.push(part.id)
    }
  }
  assert.strictEqual(new Set(results).size, results.length, "no result duplicated")
  assert.deepStrictEqual([...results].sort(), [...calls].sort(), "every call answered")
}

const answers = fc.array(fc.constantFrom<Answer>("leak", "call", "answer"), { minLength: 1, maxLength: 8 })

describe("generated agent turns through Chat", () => {
  it.effect("recoveries per turn ≤ maxRecoveries, no tool result duplicated, no call unanswered", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          answers,
          fc.integer({ min: 0, max: 2 }),
          fc.constantFrom<Mode>("generateText", "streamText"),
          async (drawn, maxRecoveries, mode) => {
            // Ends with a plain answer, so that the model never runs out of script.
            const script: Answer[] = [...drawn, "answer"]
            const maxSteps = 6
            const expected = oracle(script, maxRecoveries, maxSteps)
            const model =
              mode === "generateText"
                ? scriptedModel({ generate: script.map(generated) })
                : scriptedModel({ stream: script.map(streamed) })
            const events: RecoveryEvent[] = []
            const { read, layer } = fileHandlers()
            const step = (chat: Chat.Chat, prompt: Prompt.RawInput) =>
              mode === "generateText"
                ? Effect.map(chat.generateText({ prompt, toolkit: files }), (r) => r.finishReason)
                : Effect.map(
                    Stream.runCollect(chat.streamText({ prompt, toolkit: files })),
                    (parts) => parts.find((part) => part.type === "finish")?.reason,
                  )
            const outcome = await Effect.runPromise(
              Effect.result(
                Effect.gen(function* () {
                  const chat = yield* Chat.empty
                  const failure = yield* Effect.flip(
                    Effect.gen(function* () {
                      let reason = yield* step(chat, "Read the files.")
                      for (let steps = 1; reason === "tool-calls" && steps < maxSteps; steps++) {
                        reason = yield* step(chat, [])
                      }
                    }),
                  ).pipe(Effect.option)
                  return { failure, history: yield* Ref.get(chat.history) }
                }),
              ).pipe(
                Effect.provide(
                  ToolCallRecovery.layer({ maxRecoveries, onEvent: (event) => events.push(event) }),
                ),
                Effect.provide(model.layer),
                Effect.provide(layer),
              ),
            )
            assert.strictEqual(outcome._tag, "Success")
            if (outcome._tag !== "Success") return
            const { failure, history } = outcome.success
            const recoveries = events.filter((event) => event.type === "recovery-started").length
            assert.isAtMost(recoveries, maxRecoveries)
            assert.strictEqual(recoveries, expected.recoveries)
            assert.strictEqual(model.requests.length, expected.calls)
            assert.strictEqual(new Set(read).size, read.length, "no handler ran twice")
            assert.strictEqual(read.length, expected.executed)
            const failed = failure._tag === "Some"
            assert.strictEqual(failed, expected.failed)
            if (failure._tag === "Some") {
              assert.isTrue(isToolCallRecoveryError(failure.value))
            }
            answeredOnce(history)
            assert.notInclude(JSON.stringify(history), "<function=")
          },
        ),
        { numRuns: 60 },
      ),
    ),
  )
})
