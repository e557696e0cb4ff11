import { assert, describe, it } from "@effect/vitest"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { Effect, type Layer, Ref, Schema, Stream } from "effect"
import { type AiError, Chat, LanguageModel } from "effect/ai"
import { ToolCallRecovery } from "../src/index.ts"
import {
  effectsHistory,
  failureOf,
  type Handlers,
  historyShape,
  recordingHandlers,
  runOurs,
  toolkit,
} from "./support/fixtures.ts"
import { fileHandlers, files, qwenLeak, streamedText } from "./support/leaks.ts"

type Model = Layer.Layer<LanguageModel.LanguageModel>

/** A replay server running `script`, and a provider that talks to it over real HTTP. */
const withServer = <A, E>(
  script: ReplayScript,
  use: (server: ReplayServer, model: Model) => Effect.Effect<A, E>,
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startReplayServer({ script })),
    (server) => use(server, openAiCompatibleModel({ baseURL: server.url, model: "replay" })),
    (server) => Effect.promise(() => server.close()),
  )

type Message = { readonly role: string; readonly content?: unknown; readonly tool_calls?: unknown }
const messagesOf = (server: ReplayServer, index: number): Message[] =>
  (server.requests[index]?.body?.messages ?? []) as Message[]

/** The leak streamed in small chunks, then a structured call on the retry. */
const leakThenCall: ReplayScript = [
  { content: `Let me check that. ${qwenLeak}`, chunkSize: 5 },
  { toolCalls: [{ name: "read_file", arguments: '{"path": "src/a.ts"}' }], finishReason: "tool_calls" },
]

describe("over HTTP: the replay server, and a provider on Effect's HttpClient", () => {
  it.effect("streamed: the retry's text starts on a new line after the prose the first attempt showed", () =>
    withServer(
      [
        { content: `I will run it.${qwenLeak}`, chunkSize: 4 },
        {
          content: "Calling the tool properly.",
          toolCalls: [{ name: "read_file", arguments: '{"path": "src/a.ts"}' }],
          finishReason: "tool_calls",
        },
      ],
      (server, model) =>
        Effect.gen(function* () {
          const { layer } = fileHandlers()
          const options = { prompt: [{ role: "user", content: "Read src/a.ts" }] as const, toolkit: files }
          const text = yield* Effect.map(
            Stream.runCollect(LanguageModel.streamText(options)),
            streamedText,
          ).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model), Effect.provide(layer))
          assert.strictEqual(text, "I will run it.\nCalling the tool properly.")
          assert.include(server.requests[1]?.rawBody ?? "", "already saw the text before that call")
        }),
    ),
  )

  for (const stream of [false, true]) {
    const api = stream ? "SSE" : "JSON"

    it.effect(`markup recovery through the layer (${api})`, () =>
      withServer(leakThenCall, (server, model) =>
        Effect.gen(function* () {
          const { read, layer } = fileHandlers()
          const options = { prompt: [{ role: "user", content: "Read src/a.ts" }] as const, toolkit: files }
          const text = yield* (
            stream
              ? Effect.map(Stream.runCollect(LanguageModel.streamText(options)), streamedText)
              : Effect.map(LanguageModel.generateText(options), (response) => response.text)
          ).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model), Effect.provide(layer))
          // Streamed, the safe prose was shown; in a JSON response nothing was, and the malformed
          // response's prose is absent from the result.
          assert.strictEqual(text, stream ? "Let me check that. " : "")
          assert.deepStrictEqual(read, ["src/a.ts"])
          assert.lengthOf(server.requests, 2)
          assert.strictEqual(server.requests[1]?.body?.stream, stream)
          const retry = messagesOf(server, 1)
          assert.deepStrictEqual(
            retry.map((message) => message.role),
            ["system", "user"],
          )
          assert.isTrue(isRetryRequest(retry[0]?.content))
          assert.notInclude(JSON.stringify(retry), "<function=read_file>")
        }),
      ),
    )

    it.effect(`unknownToolCalls: "return" (${api})`, () =>
      withServer(
        [
          {
            content: "Let me look.",
            toolCalls: [
              { name: "DeleteEverything", arguments: '{"force": true}' },
              { name: "GetWeather", arguments: ['{"city"', ': "Paris"}'] },
              { name: "Gone", arguments: '{"broken' },
            ],
            finishReason: "tool_calls",
          },
        ],
        (server, model) =>
          Effect.gen(function* () {
            const { ran, layer } = recordingHandlers()
            const parts = yield* runOurs(stream ? "streamText" : "generateText", {
              prompt: "hi",
              toolkit,
              unknownToolCalls: "return",
            }).pipe(Effect.provide(model), Effect.provide(layer))
            assert.deepStrictEqual(
              parts
                .filter(ToolCallRecovery.isToolCallErrorPart)
                .map((part) => [part.name, part.params, failureOf(part.error)]),
              [
                ["DeleteEverything", { force: true }, "Toolkit/ToolNotFoundError"],
                ["Gone", '{"broken', "Toolkit/ToolNotFoundError"],
              ],
            )
            assert.deepStrictEqual(ran, ["GetWeather:Paris"])
            // Effect's own Prompt.fromResponseParts answers every call, the unknown ones with failures.
            const history = historyShape(effectsHistory(parts))
            assert.deepStrictEqual(history.roles, ["assistant", "tool"])
            assert.deepStrictEqual(
              history.calls.map(([, name]) => name),
              ["DeleteEverything", "GetWeather", "Gone"],
            )
            assert.deepStrictEqual(
              history.results.map(([, name, isFailure, reason]) => [name, isFailure, reason]).sort(),
              [
                ["DeleteEverything", true, "ToolNotFoundError"],
                ["GetWeather", false, undefined],
                ["Gone", true, "ToolNotFoundError"],
              ],
            )
            assert.lengthOf(server.requests, 1)
            const tools = server.requests[0]!.body!.tools as Array<{ function: { name: string } }>
            assert.deepStrictEqual(
              tools.map((tool) => tool.function.name),
              ["GetWeather", "GetTime"],
            )
          }),
      ),
    )
  }

  it.effect(
    'Chat.generateObject through the layer with unknownToolCalls "return": the value and a failed result',
    () =>
      withServer(
        [
          {
            content: '{"a":1}',
            toolCalls: [{ id: "c1", name: "DeleteEverything", arguments: '{"force": true}' }],
            finishReason: "tool_calls",
          },
        ],
        (server, model) =>
          Effect.gen(function* () {
            const chat = yield* Chat.empty
            const answer = yield* chat.generateObject({
              prompt: "hi",
              schema: Schema.Struct({ a: Schema.Number }),
              toolkit,
            })
            assert.deepStrictEqual(answer.value, { a: 1 })
            assert.deepStrictEqual(
              (answer.content as ReadonlyArray<unknown>)
                .filter(ToolCallRecovery.isToolCallErrorPart)
                .map((part) => part.name),
              ["DeleteEverything"],
            )
            assert.deepStrictEqual(historyShape(yield* Ref.get(chat.history)).results, [
              ["c1", "DeleteEverything", true, "ToolNotFoundError"],
            ])
            assert.lengthOf(server.requests, 1)
          }).pipe(
            Effect.provide(ToolCallRecovery.layer({ unknownToolCalls: "return" })),
            Effect.provide(model),
            Effect.provide(recordingHandlers().layer),
          ),
      ),
  )

  const unknownCall = {
    content: "Let me look.",
    toolCalls: [
      { id: "c1", name: "DeleteEverything", arguments: '{"force": true}' },
      { id: "c2", name: "GetWeather", arguments: '{"city": "Paris"}' },
    ],
    finishReason: "tool_calls",
  } as const
  type Sent = Effect.Effect<ReadonlyArray<unknown>, AiError.AiError, LanguageModel.LanguageModel | Handlers>
  const errorNames = (parts: ReadonlyArray<unknown>) =>
    parts.filter(ToolCallRecovery.isToolCallErrorPart).map((part) => part.name)

  for (const stream of [false, true]) {
    const method = stream ? "streamText" : "generateText"
    // Effect 4.1's `Chat` spreads the caller's options into the service's, as #7574 has it ("Chat
    // forwards it"); its types do not list the option yet, hence the untyped spread.
    const sendOption = (chat: Chat.Chat, mode: ToolCallRecovery.UnknownToolCalls): Sent => {
      const perCall: {} = { unknownToolCalls: mode }
      const options = { prompt: "hi", toolkit, ...perCall }
      return stream
        ? Effect.map(Stream.runCollect(chat.streamText(options)), (parts): ReadonlyArray<unknown> => parts)
        : Effect.map(chat.generateText(options), (response): ReadonlyArray<unknown> => response.content)
    }
    // The form the types accept: `withUnknownToolCalls` around the call (the first mode innermost).
    const sendWrapped = (
      chat: Chat.Chat,
      ...modes: ReadonlyArray<ToolCallRecovery.UnknownToolCalls>
    ): Sent => {
      if (stream) {
        let parts: Stream.Stream<unknown, AiError.AiError, LanguageModel.LanguageModel | Handlers> =
          chat.streamText({ prompt: "hi", toolkit })
        for (const mode of modes) parts = parts.pipe(ToolCallRecovery.withUnknownToolCalls(mode))
        return Effect.map(Stream.runCollect(parts), (all): ReadonlyArray<unknown> => all)
      }
      let response: Effect.Effect<
        { readonly content: ReadonlyArray<unknown> },
        AiError.AiError,
        LanguageModel.LanguageModel | Handlers
      > = chat.generateText({ prompt: "hi", toolkit })
      for (const mode of modes) response = response.pipe(ToolCallRecovery.withUnknownToolCalls(mode))
      return Effect.map(response, ({ content }) => content)
    }

    for (const [form, send] of [
      ["the Chat option", sendOption],
      ["withUnknownToolCalls", sendWrapped],
    ] as const) {
      it.effect(`Chat.${method}, per call through ${form}: "return" over the default layer`, () =>
        withServer([unknownCall], (server, model) => {
          const { ran, layer } = recordingHandlers()
          return Effect.gen(function* () {
            const chat = yield* Chat.empty
            assert.deepStrictEqual(errorNames(yield* send(chat, "return")), ["DeleteEverything"])
            assert.deepStrictEqual(ran, ["GetWeather:Paris"])
            assert.deepStrictEqual([...historyShape(yield* Ref.get(chat.history)).results].sort(), [
              ["c1", "DeleteEverything", true, "ToolNotFoundError"],
              ["c2", "GetWeather", false, undefined],
            ])
            // The option is ours: the provider never sees it.
            assert.lengthOf(server.requests, 1)
            assert.notProperty(server.requests[0]?.body, "unknownToolCalls")
          }).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model), Effect.provide(layer))
        }),
      )

      it.effect(`Chat.${method}, per call through ${form}: "error" wins over the layer's "return"`, () =>
        withServer([unknownCall], (server, model) => {
          const { ran, layer } = recordingHandlers()
          return Effect.gen(function* () {
            const chat = yield* Chat.empty
            const error = yield* Effect.flip(send(chat, "error"))
            assert.strictEqual(error.reason._tag, "InvalidOutputError")
            assert.deepStrictEqual(ran, [])
            assert.lengthOf(server.requests, 1)
          }).pipe(
            Effect.provide(ToolCallRecovery.layer({ unknownToolCalls: "return" })),
            Effect.provide(model),
            Effect.provide(layer),
          )
        }),
      )
    }

    it.effect(`Chat.${method} under withUnknownToolCalls("return"), on the provider's own model`, () =>
      withServer([unknownCall, unknownCall], (server, model) => {
        const { ran, layer } = recordingHandlers()
        return Effect.gen(function* () {
          const chat = yield* Chat.empty
          // Effect alone fails the whole call, and runs no handler (issue 28's report).
          const error = yield* Effect.flip(sendWrapped(chat))
          assert.strictEqual(error.reason._tag, "InvalidOutputError")
          assert.deepStrictEqual(ran, [])

          assert.deepStrictEqual(errorNames(yield* sendWrapped(chat, "return")), ["DeleteEverything"])
          assert.deepStrictEqual(ran, ["GetWeather:Paris"])
          // The history holds both calls and both answers, the failed one included.
          assert.deepStrictEqual([...historyShape(yield* Ref.get(chat.history)).results].sort(), [
            ["c1", "DeleteEverything", true, "ToolNotFoundError"],
            ["c2", "GetWeather", false, undefined],
          ])
          assert.lengthOf(server.requests, 2)
        }).pipe(Effect.provide(model), Effect.provide(layer))
      }),
    )

    it.effect(`Chat.${method}: the innermost withUnknownToolCalls wins`, () =>
      withServer([unknownCall, unknownCall], (_server, model) => {
        const { layer } = recordingHandlers()
        return Effect.gen(function* () {
          const chat = yield* Chat.empty
          assert.deepStrictEqual(errorNames(yield* sendWrapped(chat, "return", "error")), [
            "DeleteEverything",
          ])
          const error = yield* Effect.flip(sendWrapped(chat, "error", "return"))
          assert.strictEqual(error.reason._tag, "InvalidOutputError")
        }).pipe(Effect.provide(model), Effect.provide(layer))
      }),
    )
  }

  for (const stream of [false, true]) {
    it.effect(
      `both fixes compose: the layer recovers a leak, withUnknownToolCalls returns the unknown call (${stream ? "streamText" : "generateText"})`,
      () =>
        withServer(
          [
            leakThenCall[0]!,
            {
              toolCalls: [
                { id: "c1", name: "DeleteEverything", arguments: "{}" },
                { id: "c2", name: "read_file", arguments: '{"path": "src/a.ts"}' },
              ],
              finishReason: "tool_calls",
            },
          ],
          (server, model) => {
            const { read, layer } = fileHandlers()
            return Effect.gen(function* () {
              const chat = yield* Chat.empty
              const returning = ToolCallRecovery.withUnknownToolCalls("return")
              const parts: ReadonlyArray<unknown> = stream
                ? yield* Stream.runCollect(
                    chat.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(returning),
                  )
                : (yield* chat.generateText({ prompt: "Read src/a.ts", toolkit: files }).pipe(returning))
                    .content
              assert.deepStrictEqual(
                parts.filter(ToolCallRecovery.isToolCallErrorPart).map((part) => part.name),
                ["DeleteEverything"],
              )
              assert.deepStrictEqual(read, ["src/a.ts"])
              assert.lengthOf(server.requests, 2, "the leak, then the retry")
              assert.isTrue(isRetryRequest(messagesOf(server, 1)))
              assert.notInclude(JSON.stringify(yield* Ref.get(chat.history)), "<function=")
            }).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model), Effect.provide(layer))
          },
        ),
    )
  }

  it.effect('chat.generateText under withUnknownToolCalls("return"): the response as typed', () =>
    withServer([unknownCall], (_server, model) =>
      Effect.gen(function* () {
        const chat = yield* Chat.empty
        const response = yield* chat
          .generateText({ prompt: "hi", toolkit })
          .pipe(ToolCallRecovery.withUnknownToolCalls("return"))
        // No cast: `toolCallErrors` is there at run time, as its type says.
        assert.deepStrictEqual(
          response.toolCallErrors.map((part) => [part.id, part.name, part.error.reason._tag]),
          [["c1", "DeleteEverything", "ToolNotFoundError"]],
        )
        assert.deepStrictEqual(
          response.toolResults.map((part) => [part.id, part.isFailure]),
          [
            ["c1", true],
            ["c2", false],
          ],
        )
      }).pipe(Effect.provide(model), Effect.provide(recordingHandlers().layer)),
    ),
  )

  it.effect("a Chat through the layer: the next turn's history holds the real call, not the leak", () =>
    withServer([...leakThenCall, { content: "It exports a function." }], (server, model) =>
      Effect.gen(function* () {
        const chat = yield* Chat.empty
        yield* chat.streamText({ prompt: "Read src/a.ts", toolkit: files }).pipe(Stream.runDrain)
        const answer = yield* chat.generateText({ prompt: "What does it do?", toolkit: files })
        assert.strictEqual(answer.text, "It exports a function.")
        assert.lengthOf(server.requests, 3)
        const third = messagesOf(server, 2)
        assert.deepStrictEqual(
          third.map((message) => message.role),
          ["user", "assistant", "tool", "user"],
        )
        assert.notInclude(JSON.stringify(third), "<function=")
        assert.isFalse(isRetryRequest(third))
      }).pipe(
        Effect.provide(ToolCallRecovery.layer()),
        Effect.provide(model),
        Effect.provide(fileHandlers().layer),
      ),
    ),
  )

  it("@effect/ai-openai-compat (newest published, 4.0.0-beta.98) does not load with effect 4.1", async () => {
    const error = await import("@effect/ai-openai-compat").then(
      () => undefined,
      (e: unknown) => e,
    )
    // It imports `effect/unstable/*`, which effect 4.1 no longer exports.
    assert.match(String(error), /unstable/)
  })
})

describe("a retry that fails at the provider is final, also under Effect.retry({ while: isRetryable })", () => {
  // The documented idiom re-ran the whole call on the retry's retryable AiError (HTTP 503): a
  // fresh first request and a fresh budget each time.
  const overloaded = { httpError: { status: 503, message: "overloaded" } }
  for (const stream of [false, true]) {
    it.effect(
      `${stream ? "streamText" : "generateText"}: two requests, the provider's error, not retryable`,
      () =>
        withServer([{ content: qwenLeak }, overloaded, { content: qwenLeak }, overloaded], (server, model) =>
          Effect.gen(function* () {
            const options = { prompt: [{ role: "user", content: "Read src/a.ts" }] as const, toolkit: files }
            const run = stream
              ? Stream.runDrain(LanguageModel.streamText(options))
              : Effect.asVoid(LanguageModel.generateText(options))
            const error = yield* run.pipe(
              Effect.retry({ times: 3, while: (e: AiError.AiError) => e.isRetryable }),
              Effect.flip,
              Effect.provide(ToolCallRecovery.layer()),
              Effect.provide(model),
              Effect.provide(fileHandlers().layer),
            )
            assert.deepStrictEqual(
              server.requests.map((r) => isRetryRequest(r.body?.messages ?? [])),
              [false, true],
            )
            assert.include(String(error.message), "overloaded")
            assert.isFalse(error.isRetryable)
          }),
        ),
    )
  }
})
