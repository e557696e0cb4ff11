// biome-ignore-all lint/suspicious/noExplicitAny: Effect's stream part type is generic over the caller's toolkit.
import { assert, describe, it } from "@effect/vitest"
import { type NormalizedPart, recoverToolCalls } from "@tool-rescue/recovery"
import { chunked, response } from "@tool-rescue/testing"
import { Effect, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import fc from "fast-check"
import { ToolCallRecovery } from "../src/index.ts"
import { callStream, fileHandlers, files, streamedText, textStream } from "./support/leaks.ts"
import { finish, scriptedModel } from "./support/scripted-model.ts"

const tools = ["read_file"]

/**
 * A model answer (prose, fenced examples, thinking, leaks in every format), and a chunking of it
 * into non-empty deltas (an empty answer has none). An answer averages ~100 deltas, and each
 * costs ~0.1 ms through the decorator's stream (the detector itself is property-tested at
 * length in its own package): so the runs below are few, and each one is long.
 */
const answer = response({ tools }).chain((sample) =>
  chunked(sample.text).map((chunks) => ({ ...sample, chunks: chunks.filter((chunk) => chunk.length > 0) })),
)

/** What `runTurn` itself makes of the same attempt: the oracle the adapter must match. */
async function oracle(chunks: readonly string[]): Promise<{ text: string; attempts: number }> {
  let attempts = 0
  let text = ""
  async function* attempt(round: number): AsyncGenerator<NormalizedPart<string>> {
    attempts++
    if (round === 0) for (const chunk of chunks) yield { type: "text", text: chunk, id: "txt" }
    else yield { type: "tool-call", toolName: "read_file", raw: "call" }
    yield { type: "finish", raw: "finish" }
  }
  for await (const part of recoverToolCalls({ tools, attempt })) if (part.type === "text") text += part.text
  return { text, attempts }
}

const streamThrough = (chunks: readonly string[]) => {
  const model = scriptedModel({ stream: [textStream(chunks), callStream()] })
  return LanguageModel.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
    Stream.runCollect,
    Effect.provide(ToolCallRecovery.layer()),
    Effect.provide(model.layer),
    Effect.provide(fileHandlers().layer),
    Effect.map((parts) => ({ parts, requests: model.requests.length })),
  )
}

/** Every text block is started once, its deltas come between start and end, and it is ended. */
function assertWellFormed(parts: ReadonlyArray<Response.StreamPart<any>>): void {
  const open = new Set<string>()
  const seen = new Set<string>()
  for (const part of parts) {
    if (part.type === "text-start") {
      assert.isFalse(seen.has(part.id), `block ${part.id} started twice`)
      open.add(part.id)
      seen.add(part.id)
    } else if (part.type === "text-delta") {
      assert.isTrue(open.has(part.id), `delta outside its block ${part.id}`)
      assert.isNotEmpty(part.delta)
    } else if (part.type === "text-end") {
      assert.isTrue(open.delete(part.id), `block ${part.id} ended while not open`)
    }
  }
  assert.strictEqual(open.size, 0, "every block is ended")
  assert.deepStrictEqual(parts.filter((part) => part.type === "finish").length, 1, "exactly one finish")
  assert.strictEqual(parts.at(-1)?.type, "finish", "finish comes last")
}

describe("the decorator over generated answers", () => {
  it.effect("streamText matches runTurn: same visible text, same requests, well-formed parts", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(answer, async ({ chunks }) => {
          const expected = await oracle(chunks)
          const { parts, requests } = await Effect.runPromise(streamThrough(chunks))
          assert.strictEqual(streamedText(parts), expected.text)
          assert.strictEqual(requests, expected.attempts)
          assertWellFormed(parts)
          if (requests === 2) {
            assert.strictEqual(parts.filter((part) => part.type === "tool-call").length, 1)
            assert.strictEqual(
              (parts.find((part) => part.type === "finish") as Response.FinishPart).usage.inputTokens.total,
              20,
              "usage of both attempts",
            )
          }
        }),
        { numRuns: 50 },
      ),
    ),
  )

  it.effect(
    "the chunking does not matter, and generateText agrees with streamText (but drops a malformed answer)",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(answer, async ({ text, chunks }) => {
            const whole = await Effect.runPromise(streamThrough(text.length === 0 ? [] : [text]))
            const split = await Effect.runPromise(streamThrough(chunks))
            assert.strictEqual(streamedText(split.parts), streamedText(whole.parts))
            assert.deepStrictEqual(
              split.parts.filter((part) => part.type !== "text-delta").map((part) => part.type),
              whole.parts.filter((part) => part.type !== "text-delta").map((part) => part.type),
            )
            const model = scriptedModel({
              generate: [
                [{ type: "text", text }, finish()],
                [
                  { type: "tool-call", id: "call_1", name: "read_file", params: { path: "src/a.ts" } },
                  finish("tool-calls"),
                ],
              ],
            })
            const generated = await Effect.runPromise(
              LanguageModel.generateText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
                Effect.provide(ToolCallRecovery.layer()),
                Effect.provide(model.layer),
                Effect.provide(fileHandlers().layer),
              ),
            )
            // Streamed, the safe text of a malformed answer was shown; generated, nothing was, and a
            // recovered response holds only the retry's (here a call, no text).
            assert.strictEqual(generated.text, whole.requests === 2 ? "" : streamedText(whole.parts))
            assert.strictEqual(model.requests.length, whole.requests)
          }),
          { numRuns: 30 },
        ),
      ),
  )
})
