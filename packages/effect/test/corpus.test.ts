import { assert, describe, it } from "@effect/vitest"
import { corpus } from "@tool-rescue/testing"
import { Effect, Stream } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import { ToolCallRecovery } from "../src/index.ts"
import { streamedText, textStream } from "./support/leaks.ts"
import { finish, scriptedModel } from "./support/scripted-model.ts"

/** Splits text into deltas of `size` characters, as a provider streams it. */
const deltas = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size))

describe("the labelled corpus of real leaks, through Effect's LanguageModel", () => {
  const core = corpus.filter((sample) => sample.scope === "core")

  it.effect.each(core.map((sample) => [sample.id, sample] as const))("%s", ([, sample]) =>
    Effect.gen(function* () {
      const toolkit = Toolkit.make(...sample.tools.map((name) => Tool.make(name)))
      const tool = sample.expect.tools[0] ?? sample.tools[0] ?? "none"
      const model = scriptedModel({
        stream: [
          textStream(deltas(sample.text, 7)),
          [[{ type: "tool-call", id: "call_1", name: tool, params: {} }], [finish("tool-calls")]],
        ],
      })
      const parts = yield* LanguageModel.streamText({
        prompt: "hi",
        toolkit,
        disableToolCallResolution: true,
      }).pipe(Stream.runCollect, Effect.provide(ToolCallRecovery.layer()), Effect.provide(model.layer))
      const recovered = sample.expect.leak && sample.expect.tools.length > 0
      assert.strictEqual(model.requests.length, recovered ? 2 : 1, "a retry exactly when the label says so")
      if (recovered) assert.strictEqual(parts.filter((part) => part.type === "tool-call").length, 1)
      // Not a leak (an example, prose): every character reaches the consumer, unchanged.
      if (!sample.expect.leak) assert.strictEqual(streamedText(parts), sample.text)
    }),
  )
})
