import { assert, describe, it } from "@effect/vitest"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"
import { AiError, Chat, LanguageModel, Model, Prompt, type Response, ResponseIdTracker } from "effect/ai"
import { isToolCallRecoveryError, ToolCallRecovery } from "../src/index.ts"
import { runOurs } from "./support/fixtures.ts"
import { callStream, fileHandlers, files, qwenLeak, streamedText, textStream } from "./support/leaks.ts"
import { finish, scriptedModel } from "./support/scripted-model.ts"

const leakStream = textStream(["Let me check that. <func", `tion${qwenLeak.slice("<func".length + 4)}`])
const leakText = `Let me check that. ${qwenLeak}`

/** Lets real time pass (the test clock of `it.effect` does not advance by itself). */
const wallClock = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** A `persistFailed` hook that never settles, and an effect that waits until it was called. */
function hangingPersist() {
  let persisting = false
  return {
    persistFailed: () => {
      persisting = true
      return new Promise<void>(() => undefined)
    },
    called: Effect.gen(function* () {
      while (!persisting) yield* wallClock(1)
    }),
  }
}

/**
 * Forks `turn` on `model` with recovery whose `persistFailed` never settles, and interrupts it
 * while `persistFailed` runs.
 */
const interruptWhilePersisting = <A, E, R>(
  model: ReturnType<typeof scriptedModel>,
  turn: Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const persist = hangingPersist()
    const fiber = yield* turn.pipe(
      Effect.provide(ToolCallRecovery.layer({ persistFailed: persist.persistFailed })),
      Effect.provide(model.layer),
      Effect.provide(fileHandlers().layer),
      Effect.forkChild,
    )
    yield* persist.called
    yield* Fiber.interrupt(fiber)
  })

const systemOf = (request: LanguageModel.ProviderOptions | undefined) =>
  request?.prompt.content.filter((message) => message.role === "system").map((message) => message.content) ??
  []

describe("streamText through the layer", () => {
  it.effect("withholds the leaked call, retries once with the instruction, and ends with the real call", () =>
    Effect.gen(function* () {
      const { read, layer } = fileHandlers()
      const model = scriptedModel({ stream: [leakStream, callStream()] })
      const parts = yield* LanguageModel.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(layer),
      )
      assert.strictEqual(streamedText(parts), "Let me check that. ")
      assert.deepStrictEqual(read, ["src/a.ts"])
      assert.lengthOf(model.requests, 2)
      // The retry: the original prompt plus the instruction in the leading system message, and
      // never the malformed response.
      const retry = model.requests[1]!
      assert.strictEqual(retry.prompt.content[0]?.role, "system")
      assert.lengthOf(systemOf(retry), 1)
      assert.isTrue(isRetryRequest(systemOf(retry)[0]))
      assert.notInclude(JSON.stringify(retry.prompt.content), "<function=read_file>")
      assert.deepStrictEqual(
        retry.prompt.content.map((message) => message.role),
        ["system", "user"],
      )
      // One finish, last, with the usage of both attempts.
      const finishes = parts.filter((part) => part.type === "finish")
      assert.lengthOf(finishes, 1)
      assert.strictEqual(parts.at(-1)?.type, "finish")
      assert.strictEqual((finishes[0] as Response.FinishPart).usage.inputTokens.total, 20)
      assert.deepStrictEqual(
        parts.map((part) => part.type),
        ["text-start", "text-delta", "text-end", "tool-call", "tool-result", "finish"],
      )
    }),
  )

  it.effect(
    "a provider stream that ends with no finish part was cut short: markup withheld, never retried",
    () =>
      Effect.gen(function* () {
        const events: RecoveryEvent[] = []
        // Cut inside the call: text-start and the deltas, then the stream just ends.
        const cut = leakStream.slice(0, -2)
        const model = scriptedModel({ stream: [cut, callStream()] })
        const parts = yield* LanguageModel.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
          Stream.runCollect,
          Effect.provide(ToolCallRecovery.layer({ onEvent: (event) => events.push(event) })),
          Effect.provide(model.layer),
          Effect.provide(fileHandlers().layer),
        )
        assert.lengthOf(model.requests, 1)
        assert.strictEqual(streamedText(parts), "Let me check that. ")
        assert.isFalse(
          parts.some((part) => part.type === "finish"),
          "no finish is invented",
        )
        assert.deepStrictEqual(
          events.map((event) => (event.type === "markup-detected" ? event.reason : event.type)),
          ["provider-error"],
        )
      }),
  )

  it.effect(
    "a second malformed response fails with a non-retryable AiError from module ToolCallRecovery",
    () =>
      Effect.gen(function* () {
        const model = scriptedModel({ stream: [leakStream, leakStream, leakStream] })
        const error = yield* LanguageModel.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
          Stream.runCollect,
          Effect.flip,
          Effect.provide(ToolCallRecovery.layer()),
          Effect.provide(model.layer),
          Effect.provide(fileHandlers().layer),
        )
        assert.isTrue(isToolCallRecoveryError(error))
        assert.isTrue(AiError.isAiError(error))
        if (!isToolCallRecoveryError(error)) return
        assert.strictEqual(error.module, "ToolCallRecovery")
        assert.strictEqual(error.method, "streamText")
        assert.isFalse(error.isRetryable)
        assert.strictEqual(error.reason.metadata.toolRescue?.code, "repeated-markup")
        assert.strictEqual(error.reason.metadata.toolRescue?.rounds, 2)
        assert.lengthOf(model.requests, 2)
      }),
  )

  it.effect("a clean response passes through unchanged, with one request", () =>
    Effect.gen(function* () {
      const clean = textStream(["Here is `<function=read_file>` as an example,", " and a tag <in> too."])
      const plain = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(scriptedModel({ stream: [clean] }).layer),
      )
      const model = scriptedModel({ stream: [clean] })
      const decorated = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
      )
      assert.deepStrictEqual(decorated, plain)
      assert.lengthOf(model.requests, 1)
    }).pipe(Effect.provide(fileHandlers().layer)),
  )

  it.effect("a response with a structured call is never retried, even with markup in its text", () =>
    Effect.gen(function* () {
      const { read, layer } = fileHandlers()
      const model = scriptedModel({
        stream: [[...textStream([leakText]).slice(0, 3), ...callStream()]],
      })
      const parts = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(layer),
      )
      assert.lengthOf(model.requests, 1)
      assert.deepStrictEqual(read, ["src/a.ts"])
      assert.notInclude(streamedText(parts), "<function=")
    }),
  )

  it.effect("provider errors pass through unchanged and are never retried", () =>
    Effect.gen(function* () {
      const failure = AiError.make({
        module: "Provider",
        method: "streamText",
        reason: new AiError.RateLimitError({}),
      })
      let requests = 0
      const failing = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () => Effect.fail(failure),
          streamText: () => {
            requests++
            // The markup comes before the failure: the attempt is still final.
            return Stream.make(
              { type: "text-start", id: "t" } as const,
              { type: "text-delta", id: "t", delta: leakText } as const,
            ).pipe(Stream.concat(Stream.fail(failure)))
          },
        }),
      )
      const error = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.flip,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(failing),
        Effect.provide(fileHandlers().layer),
      )
      assert.strictEqual(error, failure)
      assert.strictEqual(requests, 1)
    }),
  )

  it.effect("a provider error reported inside the stream after markup is final: no retry", () =>
    Effect.gen(function* () {
      const model = scriptedModel({
        stream: [
          [
            [{ type: "text-start", id: "t" }],
            [{ type: "text-delta", id: "t", delta: leakText }],
            [{ type: "error", error: { message: "upstream cut" } }],
            [{ ...finish(), reason: "error" }],
          ],
          callStream(),
        ],
      })
      const parts = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(fileHandlers().layer),
      )
      assert.lengthOf(model.requests, 1)
      assert.deepStrictEqual(
        parts.map((part) => part.type),
        ["text-start", "text-delta", "error", "finish"],
      )
      assert.notInclude(streamedText(parts), "<function=")
    }),
  )

  it.effect("instructionPlacement user appends a user message; an existing system message is merged", () =>
    Effect.gen(function* () {
      const prompt = Prompt.make([
        { role: "system", content: "You are terse." },
        { role: "user", content: "Read src/a.ts" },
      ])
      for (const placement of ["system", "user"] as const) {
        const model = scriptedModel({ stream: [leakStream, callStream()] })
        yield* LanguageModel.streamText({ prompt, toolkit: files }).pipe(
          Stream.runDrain,
          Effect.provide(
            ToolCallRecovery.layer({ instructionPlacement: placement, instruction: "USE REAL CALLS" }),
          ),
          Effect.provide(model.layer),
        )
        const retry = model.requests[1]!
        if (placement === "system") {
          assert.deepStrictEqual(systemOf(retry), ["You are terse.\n\nUSE REAL CALLS"])
          assert.deepStrictEqual(
            retry.prompt.content.map((message) => message.role),
            ["system", "user"],
          )
        } else {
          assert.deepStrictEqual(systemOf(retry), ["You are terse."])
          const last = retry.prompt.content.at(-1) as Prompt.UserMessage
          assert.strictEqual(last.role, "user")
          assert.deepStrictEqual(last.content, [Prompt.makePart("text", { text: "USE REAL CALLS" })])
        }
      }
    }).pipe(Effect.provide(fileHandlers().layer)),
  )

  it.effect("an empty leading system message becomes the instruction alone (no leading blank line)", () =>
    Effect.gen(function* () {
      const prompt = Prompt.make([
        { role: "system", content: "" },
        { role: "user", content: "Read src/a.ts" },
      ])
      const model = scriptedModel({ stream: [leakStream, callStream()] })
      yield* LanguageModel.streamText({ prompt, toolkit: files }).pipe(
        Stream.runDrain,
        Effect.provide(ToolCallRecovery.layer({ instruction: "USE REAL CALLS" })),
        Effect.provide(model.layer),
      )
      assert.deepStrictEqual(systemOf(model.requests[1]!), ["USE REAL CALLS"])
    }).pipe(Effect.provide(fileHandlers().layer)),
  )

  it.effect(
    "persistFailed gets the malformed response; a failing hook ends the turn with persist-failed",
    () =>
      Effect.gen(function* () {
        const persisted: string[] = []
        const events: RecoveryEvent["type"][] = []
        yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
          Stream.runDrain,
          Effect.provide(
            ToolCallRecovery.layer({
              persistFailed: (failed) => {
                persisted.push(failed.text)
              },
              onEvent: (event) => events.push(event.type),
            }),
          ),
          Effect.provide(scriptedModel({ stream: [leakStream, callStream()] }).layer),
        )
        assert.deepStrictEqual(persisted, [leakText])
        assert.deepStrictEqual(events, ["markup-detected", "recovery-started", "recovery-succeeded"])

        const model = scriptedModel({ stream: [leakStream, callStream()] })
        const error = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
          Stream.runDrain,
          Effect.flip,
          Effect.provide(
            ToolCallRecovery.layer({
              persistFailed: () => Promise.reject(new Error("disk full")),
            }),
          ),
          Effect.provide(model.layer),
        )
        assert.isTrue(isToolCallRecoveryError(error))
        if (isToolCallRecoveryError(error))
          assert.strictEqual(error.reason.metadata.toolRescue?.code, "persist-failed")
        assert.lengthOf(model.requests, 1)
      }).pipe(Effect.provide(fileHandlers().layer)),
  )
})

describe("approvals resolved before the call are not repeated by a retry", () => {
  for (const mode of ["generateText", "streamText"] as const) {
    it.effect(`with disableToolCallResolution, where Effect runs them without emitting them (${mode})`, () =>
      Effect.gen(function* () {
        const { read, layer } = fileHandlers()
        const prompt = Prompt.make([
          { role: "user", content: "Read src/a.ts" },
          {
            role: "assistant",
            content: [
              { type: "tool-call", id: "a1", name: "read_file", params: { path: "src/a.ts" } },
              { type: "tool-approval-request", approvalId: "ap1", toolCallId: "a1" },
            ],
          },
          { role: "tool", content: [{ type: "tool-approval-response", approvalId: "ap1", approved: true }] },
        ])
        const model =
          mode === "generateText"
            ? scriptedModel({
                generate: [
                  [{ type: "text", text: leakText }, finish()],
                  [{ type: "text", text: "It exports a." }, finish()],
                ],
              })
            : scriptedModel({ stream: [leakStream, textStream(["It exports a."])] })
        const options = { prompt, toolkit: files, disableToolCallResolution: true } as const
        yield* (
          mode === "generateText"
            ? LanguageModel.generateText(options)
            : Stream.runDrain(LanguageModel.streamText(options))
        ).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model.layer), Effect.provide(layer))
        assert.deepStrictEqual(read, ["src/a.ts"], "the approved call ran once")
        assert.lengthOf(model.requests, 2)
        for (const request of model.requests) {
          const results = request.prompt.content.flatMap((message) =>
            message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
          )
          assert.lengthOf(results, 1, "each request answers the call once")
        }
      }),
    )
  }
})

describe("interruption stops recovery", () => {
  it.effect("interrupting while the malformed attempt streams: no retry request, the attempt is closed", () =>
    Effect.gen(function* () {
      let requests = 0
      let closed = 0
      const hanging = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () => Effect.never,
          streamText: () => {
            requests++
            return Stream.fromArray<Response.StreamPartEncoded>([
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: `Reading. ${qwenLeak}` },
            ]).pipe(Stream.concat(Stream.never), Stream.ensuring(Effect.sync(() => closed++)))
          },
        }),
      )
      const seen: string[] = []
      const fiber = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runForEach((part) => Effect.sync(() => seen.push(part.type))),
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(hanging),
        Effect.provide(fileHandlers().layer),
        Effect.forkChild,
      )
      // Wait until the visible text has come through, then interrupt.
      while (!seen.includes("text-delta")) yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      yield* wallClock(20)
      assert.strictEqual(requests, 1)
      assert.strictEqual(closed, 1)
    }),
  )

  it.effect("interrupting while persistFailed runs: the retry never starts", () =>
    Effect.gen(function* () {
      const model = scriptedModel({ stream: [leakStream, callStream()] })
      yield* interruptWhilePersisting(
        model,
        LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(Stream.runDrain),
      )
      yield* wallClock(20)
      assert.lengthOf(model.requests, 1)
    }),
  )

  it.effect("a consumer that stops reading ends the turn: no retry request", () =>
    Effect.gen(function* () {
      const model = scriptedModel({ stream: [leakStream, callStream()] })
      const parts = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(fileHandlers().layer),
      )
      assert.lengthOf(parts, 2)
      yield* wallClock(20)
      assert.lengthOf(model.requests, 1)
    }),
  )
})

describe("generateText through the layer", () => {
  it.effect("recovers like streamText; the response holds only the real call, not the malformed prose", () =>
    Effect.gen(function* () {
      const { read, layer } = fileHandlers()
      const model = scriptedModel({
        generate: [
          [{ type: "text", text: leakText }, finish()],
          [
            { type: "tool-call", id: "call_1", name: "read_file", params: { path: "src/a.ts" } },
            finish("tool-calls"),
          ],
        ],
      })
      const response = yield* LanguageModel.generateText({ prompt: "Read src/a.ts", toolkit: files }).pipe(
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(layer),
      )
      assert.instanceOf(response, LanguageModel.GenerateTextResponse)
      // Nothing was shown yet: the malformed response leaves nothing in the result.
      assert.strictEqual(response.text, "")
      assert.deepStrictEqual(
        response.content.map((part) => part.type),
        ["tool-call", "finish", "tool-result"],
      )
      assert.deepStrictEqual(read, ["src/a.ts"])
      assert.strictEqual(response.usage.inputTokens.total, 20)
      assert.strictEqual(response.finishReason, "tool-calls")
      assert.isTrue(isRetryRequest(systemOf(model.requests[1])[0]))
    }),
  )

  it.effect("a second malformed response fails with the ToolCallRecovery AiError", () =>
    Effect.gen(function* () {
      const model = scriptedModel({
        generate: [
          [{ type: "text", text: leakText }, finish()],
          [{ type: "text", text: qwenLeak }, finish()],
        ],
      })
      const error = yield* LanguageModel.generateText({ prompt: "hi", toolkit: files }).pipe(
        Effect.flip,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(fileHandlers().layer),
      )
      assert.isTrue(isToolCallRecoveryError(error))
      if (isToolCallRecoveryError(error)) {
        assert.strictEqual(error.method, "generateText")
        assert.isFalse(error.isRetryable)
      }
    }),
  )

  it.effect("a clean response is Effect's response", () =>
    Effect.gen(function* () {
      const content: Response.PartEncoded[] = [
        { type: "text", text: "All good. `<tool_call>` is a tag." },
        finish(),
      ]
      const plain = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(scriptedModel({ generate: [content] }).layer),
      )
      const decorated = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(scriptedModel({ generate: [content] }).layer),
      )
      assert.deepStrictEqual(decorated.content, plain.content)
    }),
  )

  it.effect("interruption stops recovery: no retry request", () =>
    Effect.gen(function* () {
      const model = scriptedModel({ generate: [[{ type: "text", text: leakText }, finish()], [finish()]] })
      yield* interruptWhilePersisting(model, LanguageModel.generateText({ prompt: "hi", toolkit: files }))
      assert.lengthOf(model.requests, 1)
    }),
  )
})

describe("composition", () => {
  it.effect("Chat recovers through the layer; its history never holds the leak nor the instruction", () =>
    Effect.gen(function* () {
      const { layer } = fileHandlers()
      const model = scriptedModel({
        generate: [
          [{ type: "text", text: leakText }, finish()],
          [
            { type: "tool-call", id: "call_1", name: "read_file", params: { path: "src/a.ts" } },
            finish("tool-calls"),
          ],
        ],
      })
      const history = yield* Effect.gen(function* () {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "Read src/a.ts", toolkit: files })
        return yield* chat.exportJson
      }).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model.layer), Effect.provide(layer))
      assert.lengthOf(model.requests, 2)
      assert.notInclude(history, "<function=")
      assert.isFalse(isRetryRequest(history))
      assert.include(history, "contents of src/a.ts")
    }),
  )

  it.effect("composes with a provider's model layer and keeps its provider and model names", () =>
    Effect.gen(function* () {
      const model = scriptedModel({ stream: [leakStream, callStream()] })
      const provider = Model.make("scripted", "scripted-1", model.layer)
      const names = yield* Effect.gen(function* () {
        yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(Stream.runDrain)
        return [yield* Model.ProviderName, yield* Model.ModelName]
      }).pipe(
        Effect.provide(ToolCallRecovery.layer().pipe(Layer.provideMerge(provider))),
        Effect.provide(fileHandlers().layer),
      )
      assert.deepStrictEqual(names, ["scripted", "scripted-1"])
      assert.lengthOf(model.requests, 2)
    }),
  )

  it.effect("withRecovery decorates one call only", () =>
    Effect.gen(function* () {
      const model = scriptedModel({ stream: [leakStream, callStream(), leakStream] })
      yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        ToolCallRecovery.withRecovery(),
        Stream.runDrain,
        Effect.provide(model.layer),
      )
      assert.lengthOf(model.requests, 2)
      const plain = yield* LanguageModel.streamText({ prompt: "hi", toolkit: files }).pipe(
        Stream.runCollect,
        Effect.provide(model.layer),
      )
      assert.lengthOf(model.requests, 3)
      assert.include(streamedText(plain), "<function=read_file>")
      const generated = yield* LanguageModel.generateText({ prompt: "hi", toolkit: files }).pipe(
        ToolCallRecovery.withRecovery(),
        Effect.provide(
          scriptedModel({
            generate: [
              [{ type: "text", text: leakText }, finish()],
              [{ type: "text", text: "ok" }, finish()],
            ],
          }).layer,
        ),
      )
      assert.strictEqual(generated.text, "ok")
    }).pipe(Effect.provide(fileHandlers().layer)),
  )

  it.effect("generateObject passes through: one request, its JSON answer untouched", () =>
    Effect.gen(function* () {
      const answer = '{"note":"<function=read_file><parameter=path>a</parameter></function>"}'
      const model = scriptedModel({ generate: [[{ type: "text", text: answer }, finish()]] })
      const response = yield* LanguageModel.generateObject({
        prompt: "hi",
        toolkit: files,
        schema: Schema.Struct({ note: Schema.String }),
      }).pipe(
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model.layer),
        Effect.provide(fileHandlers().layer),
      )
      assert.strictEqual(response.text, answer)
      assert.lengthOf(model.requests, 1)
    }),
  )

  it.effect("an Effect toolkit is resolved once per turn, retry included", () =>
    Effect.gen(function* () {
      let resolved = 0
      const toolkit = Effect.tap(files, () =>
        Effect.sync(() => {
          resolved++
        }),
      )
      yield* LanguageModel.streamText({ prompt: "hi", toolkit }).pipe(
        Stream.runDrain,
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(scriptedModel({ stream: [leakStream, callStream()] }).layer),
        Effect.provide(fileHandlers().layer),
      )
      assert.strictEqual(resolved, 1)
    }),
  )

  it("rejects invalid options when the decorator is built (API misuse)", () => {
    assert.throws(() => ToolCallRecovery.layer({ maxRecoveries: -1 }), /maxRecoveries/)
    assert.throws(
      () => ToolCallRecovery.decorate({ instructionPlacement: "middle" as never }),
      /instructionPlacement/,
    )
  })

  it("isToolCallRecoveryError is false for other AiErrors and values", () => {
    assert.isFalse(
      isToolCallRecoveryError(
        AiError.make({ module: "X", method: "y", reason: new AiError.UnknownError({}) }),
      ),
    )
    assert.isFalse(isToolCallRecoveryError(new Error("x")))
    assert.isFalse(isToolCallRecoveryError(undefined))
    assert.strictEqual(ToolCallRecovery.isToolCallRecoveryError, isToolCallRecoveryError)
  })
})

describe("incremental prompts (ResponseIdTracker)", () => {
  for (const placement of ["system", "user"] as const) {
    it.effect(`the retry never continues from the malformed response (${placement})`, () =>
      Effect.gen(function* () {
        const withId = (
          id: string,
          chunks: Response.StreamPartEncoded[][],
        ): Response.StreamPartEncoded[][] => [[{ type: "response-metadata", id }], ...chunks]
        const model = scriptedModel({
          stream: [withId("resp_1", leakStream), withId("resp_2", callStream())],
        })
        // A conversation with an earlier assistant turn, so the tracker could chain.
        const prompt = Prompt.make([
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello." },
          { role: "user", content: "Read src/a.ts" },
        ])
        const tracker = yield* ResponseIdTracker.make
        tracker.markParts(prompt.content.slice(0, 2), "resp_0")
        yield* LanguageModel.streamText({ prompt, toolkit: files }).pipe(
          Stream.runDrain,
          Effect.provide(ToolCallRecovery.layer({ instructionPlacement: placement })),
          Effect.provide(model.layer),
          Effect.provideService(ResponseIdTracker.ResponseIdTracker, tracker),
        )
        assert.strictEqual(
          model.requests[0]?.previousResponseId,
          "resp_0",
          "the first request chains as usual",
        )
        assert.isUndefined(model.requests[1]?.previousResponseId)
        assert.isUndefined(model.requests[1]?.incrementalPrompt)
      }).pipe(Effect.provide(fileHandlers().layer)),
    )
  }
})

describe("both fixes together", () => {
  for (const mode of ["generateText", "streamText"] as const) {
    it.effect(`the layer recovers the leak, then unknownToolCalls returns the unknown call (${mode})`, () =>
      Effect.gen(function* () {
        const { read, layer } = fileHandlers()
        const retry: Response.StreamPartEncoded[] = [
          { type: "tool-call", id: "c1", name: "write_file", params: { path: "x" } },
          { type: "tool-call", id: "c2", name: "read_file", params: { path: "src/a.ts" } },
          finish("tool-calls"),
        ]
        const model =
          mode === "generateText"
            ? scriptedModel({
                generate: [[{ type: "text", text: leakText }, finish()], retry as Response.PartEncoded[]],
              })
            : scriptedModel({ stream: [leakStream, retry.map((part) => [part])] })
        const parts = yield* runOurs(mode, {
          prompt: "Read src/a.ts",
          toolkit: files,
          unknownToolCalls: "return",
        }).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model.layer), Effect.provide(layer))
        assert.lengthOf(model.requests, 2)
        assert.deepStrictEqual(read, ["src/a.ts"])
        assert.deepStrictEqual(
          parts.filter(ToolCallRecovery.isToolCallErrorPart).map((part) => part.name),
          ["write_file"],
        )
      }),
    )
  }
})
