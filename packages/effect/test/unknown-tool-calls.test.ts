// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref, Schema, Stream } from "effect"
import { type AiError, Chat, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { ToolCallRecovery } from "../src/index.ts"
import {
  call,
  effectsHistory,
  exportHistory,
  failureOf,
  finish,
  historyShape,
  modes,
  oneResponse,
  recordingHandlers,
  runEffects,
  runOurs,
  toolkit,
} from "./support/fixtures.ts"
import { scriptedModel } from "./support/scripted-model.ts"

type Part = Response.AllParts<any> | ToolCallRecovery.ToolCallErrorPart

const errorParts = (parts: ReadonlyArray<Part>) => parts.filter(ToolCallRecovery.isToolCallErrorPart)
const ofType = <T extends Part["type"]>(parts: ReadonlyArray<Part>, type: T) =>
  parts.filter((part): part is Extract<Part, { type: T }> => part.type === type)

describe.each(modes)("%s", (mode) => {
  describe("default option (Effect's own behaviour)", () => {
    it.effect("an unknown tool fails the operation exactly as LanguageModel does", () =>
      Effect.gen(function* () {
        const parts = [call("c1", "DeleteEverything", {}), finish("tool-calls")]
        const theirs = yield* Effect.flip(runEffects(mode, { prompt: "hi", toolkit })).pipe(
          Effect.provide(oneResponse(mode, parts).layer),
        )
        for (const unknownToolCalls of [undefined, "error"] as const) {
          const ours = yield* Effect.flip(
            runOurs(mode, { prompt: "hi", toolkit, ...(unknownToolCalls ? { unknownToolCalls } : {}) }),
          ).pipe(Effect.provide(oneResponse(mode, parts).layer))
          assert.strictEqual(failureOf(ours), "LanguageModel/InvalidOutputError")
          assert.strictEqual(failureOf(ours), failureOf(theirs))
        }
      }).pipe(Effect.provide(recordingHandlers().layer)),
    )

    it.effect("a valid response is Effect's response, with an empty toolCallErrors", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const parts = [
          { type: "text", text: "Checking." } as const,
          call("c1", "GetWeather", { city: "Oslo" }),
          finish("tool-calls"),
        ]
        const ours = yield* runOurs(mode, { prompt: "hi", toolkit }).pipe(
          Effect.provide(oneResponse(mode, parts).layer),
          Effect.provide(layer),
        )
        const theirs = yield* runEffects(mode, { prompt: "hi", toolkit }).pipe(
          Effect.provide(oneResponse(mode, parts).layer),
          Effect.provide(layer),
        )
        assert.deepStrictEqual(ours, theirs)
        assert.deepStrictEqual(ran, ["GetWeather:Oslo", "GetWeather:Oslo"])
        if (mode === "generateText") {
          const response = yield* ToolCallRecovery.generateText({ prompt: "hi" }).pipe(
            Effect.provide(oneResponse(mode, [{ type: "text", text: "ok" }]).layer),
          )
          assert.instanceOf(response, LanguageModel.GenerateTextResponse)
          assert.deepStrictEqual(response.toolCallErrors, [])
        }
      }),
    )
  })

  describe("default option, disableToolCallResolution: true: a known tool's failureMode is followed", () => {
    const options = { prompt: "hi", toolkit, disableToolCallResolution: true } as const

    it.effect('failureMode "return": the call and the Toolkit\'s failed result, no error part', () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const response = [
          call("c1", "GetWeather", { city: 42 }),
          call("c2", "GetWeather", { city: "Oslo" }),
          finish("tool-calls"),
        ]
        const parts = yield* runOurs(mode, options).pipe(
          Effect.provide(oneResponse(mode, response).layer),
          Effect.provide(layer),
        )
        const theirs = yield* Effect.flip(
          runEffects(mode, options).pipe(Effect.provide(oneResponse(mode, response).layer)),
        )
        assert.strictEqual(
          failureOf(theirs),
          "LanguageModel/InvalidOutputError",
          "Effect 4.1 fails the whole call",
        )
        assert.lengthOf(errorParts(parts), 0)
        assert.deepStrictEqual(
          ofType(parts, "tool-call").map((part) => [part.id, part.params]),
          [
            ["c1", { city: 42 }],
            ["c2", { city: "Oslo" }],
          ],
        )
        const results = ofType(parts, "tool-result")
        assert.deepStrictEqual(
          results.map((part) => [part.id, part.isFailure, failureOf(part.result)]),
          [["c1", true, "Toolkit/ToolParameterValidationError"]],
        )
        // The valid call is left for the caller to run, as Effect leaves it: no handler ran.
        assert.deepStrictEqual(ran, [])
        assert.deepStrictEqual(historyShape(effectsHistory(parts)).results, [
          ["c1", "GetWeather", true, "ToolParameterValidationError"],
        ])
        if (mode === "generateText") {
          const response2 = yield* ToolCallRecovery.generateText(options).pipe(
            Effect.provide(oneResponse(mode, response).layer),
          )
          assert.deepStrictEqual(response2.toolCallErrors, [])
        }
      }),
    )

    it.effect('failureMode "error": fails with the Toolkit\'s ToolParameterValidationError', () =>
      Effect.gen(function* () {
        const response = [call("c1", "GetTime", { zone: 7 }), finish("tool-calls")]
        const ours = yield* Effect.flip(
          runOurs(mode, options).pipe(Effect.provide(oneResponse(mode, response).layer)),
        )
        assert.strictEqual(failureOf(ours), "Toolkit/ToolParameterValidationError")
      }),
    )

    it.effect("an unknown tool fails the operation, naming the tool (ToolNotFoundError)", () =>
      Effect.gen(function* () {
        const response = [call("c1", "Nope", {}), finish("tool-calls")]
        const ours = yield* Effect.flip(
          runOurs(mode, options).pipe(Effect.provide(oneResponse(mode, response).layer)),
        )
        assert.strictEqual(failureOf(ours), "Toolkit/ToolNotFoundError")
      }),
    )

    it.effect("a valid response is Effect's own", () =>
      Effect.gen(function* () {
        const response = [
          { type: "text", text: "Checking." } as const,
          call("c1", "GetWeather", { city: "Oslo" }),
          finish("tool-calls"),
        ]
        const ours = yield* runOurs(mode, options).pipe(Effect.provide(oneResponse(mode, response).layer))
        const theirs = yield* runEffects(mode, options).pipe(
          Effect.provide(oneResponse(mode, response).layer),
        )
        assert.deepStrictEqual(ours, theirs)
      }),
    )
  })

  describe('unknownToolCalls: "return": did you mean', () => {
    it.effect("the available tools name the nearest to the unknown one first", () =>
      Effect.gen(function* () {
        const { layer } = recordingHandlers()
        const model = oneResponse(mode, [call("c1", "get_time", {}), finish("tool-calls")])
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(model.layer),
          Effect.provide(layer),
        )
        const [error] = errorParts(parts)
        assert.isDefined(error)
        const reason = error.error.reason as AiError.ToolNotFoundError
        assert.deepStrictEqual(reason.availableTools, ["GetTime", "GetWeather"])
        assert.include(reason.message, "Available tools: GetTime, GetWeather")
      }),
    )
  })

  describe('unknownToolCalls: "return", resolution enabled', () => {
    it.effect("an unknown call becomes a tool-call-error; the known call still runs, once", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const model = oneResponse(mode, [
          call("c1", "DeleteEverything", { force: true }),
          call("c2", "GetWeather", { city: "Paris" }),
          finish("tool-calls"),
        ])
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(model.layer),
          Effect.provide(layer),
        )
        assert.deepStrictEqual(ran, ["GetWeather:Paris"])
        assert.strictEqual(model.requests.length, 1, "one model request")
        const [error, ...more] = errorParts(parts)
        assert.isDefined(error)
        assert.lengthOf(more, 0)
        assert.strictEqual(error.id, "c1")
        assert.strictEqual(error.name, "DeleteEverything")
        assert.deepStrictEqual(error.params, { force: true })
        assert.strictEqual(failureOf(error.error), "Toolkit/ToolNotFoundError")
        assert.deepStrictEqual((error.error.reason as AiError.ToolNotFoundError).availableTools, [
          "GetWeather",
          "GetTime",
        ])
        // The call stays where it was, described by the error part right after it. Its failed
        // result is placed as Effect places tool results: after the content in generateText,
        // after the call and before `finish` in streams.
        assert.deepStrictEqual(
          parts.map((part) => [part.type, "id" in part ? part.id : undefined]),
          mode === "generateText"
            ? [
                ["tool-call", "c1"],
                ["tool-call-error", "c1"],
                ["tool-call", "c2"],
                ["finish", undefined],
                ["tool-result", "c1"],
                ["tool-result", "c2"],
              ]
            : [
                ["tool-call", "c1"],
                ["tool-call-error", "c1"],
                ["tool-result", "c1"],
                ["tool-call", "c2"],
                ["tool-result", "c2"],
                ["finish", undefined],
              ],
        )
        const [failed, result] = ofType(parts, "tool-result")
        assert.isTrue(failed?.isFailure)
        assert.deepStrictEqual(failed?.result, error.error, "the failed result carries the error")
        assert.strictEqual(result?.result, "sunny in Paris")
      }),
    )

    it.effect("Effect's own Prompt.fromResponseParts: the call, then its failed result", () =>
      Effect.gen(function* () {
        const { layer } = recordingHandlers()
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(
            oneResponse(mode, [
              { type: "text", text: "Let me see." },
              call("c1", "Nope", { a: 1 }),
              call("c2", "GetWeather", { city: "Rome" }),
              finish("tool-calls"),
            ]).layer,
          ),
          Effect.provide(layer),
        )
        const history = effectsHistory(parts)
        assert.deepStrictEqual(historyShape(history), {
          roles: ["assistant", "tool"],
          calls: [
            ["c1", "Nope", { a: 1 }],
            ["c2", "GetWeather", { city: "Rome" }],
          ],
          results: [
            ["c1", "Nope", true, "ToolNotFoundError"],
            ["c2", "GetWeather", false, undefined],
          ],
        })
        const assistant = history.content[0] as Prompt.AssistantMessage
        assert.deepStrictEqual(
          assistant.content.map((part) => part.type),
          ["text", "tool-call", "tool-call"],
        )
        // Our alias gives the very same prompt: nothing is doubled.
        assert.deepStrictEqual(ToolCallRecovery.fromResponseParts(parts), history)
        const json = yield* exportHistory(parts)
        assert.include(json, "ToolNotFoundError")
      }),
    )

    it.effect("the history answers every call: assistant tool calls, then failed and real results", () =>
      Effect.gen(function* () {
        const { layer } = recordingHandlers()
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(
            oneResponse(mode, [
              call("c1", "Nope", { a: 1 }),
              call("c2", "GetWeather", { city: "Rome" }),
              finish("tool-calls"),
            ]).layer,
          ),
          Effect.provide(layer),
        )
        const history = effectsHistory(parts)
        const [assistant, tool] = history.content
        assert.strictEqual(assistant?.role, "assistant")
        assert.strictEqual(tool?.role, "tool")
        const calls = (assistant as Prompt.AssistantMessage).content.filter((p) => p.type === "tool-call")
        const results = (tool as Prompt.ToolMessage).content.filter((p) => p.type === "tool-result")
        assert.deepStrictEqual(
          calls.map((p) => [p.id, p.name, p.params]),
          [
            ["c1", "Nope", { a: 1 }],
            ["c2", "GetWeather", { city: "Rome" }],
          ],
        )
        assert.deepStrictEqual(
          results.map((p) => [p.id, p.isFailure]),
          [
            ["c1", true],
            ["c2", false],
          ],
        )
        const failed = results[0]?.result as AiError.AiErrorEncoded
        assert.strictEqual(failed.reason._tag, "ToolNotFoundError")
        const json = yield* exportHistory(parts)
        assert.include(json, "ToolNotFoundError")
      }),
    )

    it.effect("invalid params of a known tool follow Effect's failureMode (return: a failed result)", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(
            oneResponse(mode, [call("c1", "GetWeather", { city: 42 }), finish("tool-calls")]).layer,
          ),
          Effect.provide(layer),
        )
        assert.deepStrictEqual(ran, [])
        assert.lengthOf(errorParts(parts), 0)
        const [result] = ofType(parts, "tool-result")
        assert.isTrue(result?.isFailure)
        assert.strictEqual(failureOf(result?.result), "Toolkit/ToolParameterValidationError")
      }),
    )

    it.effect("invalid params of a known tool follow Effect's failureMode (error: the operation fails)", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const error = yield* Effect.flip(
          runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
            Effect.provide(
              oneResponse(mode, [call("c1", "GetTime", { zone: 7 }), finish("tool-calls")]).layer,
            ),
            Effect.provide(layer),
          ),
        )
        assert.strictEqual(failureOf(error), "Toolkit/ToolParameterValidationError")
        assert.deepStrictEqual(ran, [])
      }),
    )

    it.effect("malformed argument text passes through unchanged", () =>
      Effect.gen(function* () {
        const { layer } = recordingHandlers()
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(
            oneResponse(mode, [
              call("c1", "Nope", '{"broken'),
              call("c2", "GetWeather", '{"broken'),
              finish("tool-calls"),
            ]).layer,
          ),
          Effect.provide(layer),
        )
        assert.strictEqual(errorParts(parts)[0]?.params, '{"broken')
        assert.deepStrictEqual(
          ofType(parts, "tool-call").map((part) => [part.id, part.params]),
          [
            ["c1", '{"broken'],
            ["c2", '{"broken'],
          ],
        )
        assert.deepStrictEqual(
          historyShape(effectsHistory(parts)).calls.map(([id, , params]) => [id, params]),
          [
            ["c1", '{"broken'],
            ["c2", '{"broken'],
          ],
        )
        const json = yield* exportHistory(parts)
        assert.include(json, String.raw`{\"broken`)
      }),
    )
  })

  describe('unknownToolCalls: "return", resolution disabled', () => {
    it.effect("unknown calls become errors; valid calls keep Effect's encoded params; no handler runs", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const response = [
          call("c1", "Nope", {}),
          call("c2", "GetWeather", { city: "Oslo", extra: 1 }),
          finish("tool-calls"),
        ]
        const options = { prompt: "hi", toolkit, disableToolCallResolution: true } as const
        const ours = yield* runOurs(mode, { ...options, unknownToolCalls: "return" }).pipe(
          Effect.provide(oneResponse(mode, response).layer),
          Effect.provide(layer),
        )
        const theirs = yield* runEffects(mode, options).pipe(
          Effect.provide(oneResponse(mode, [response[1]!, response[2]!]).layer),
          Effect.provide(layer),
        )
        assert.deepStrictEqual(ran, [])
        // Without the unknown call (its call, error part and failed result) it is Effect's response.
        assert.deepStrictEqual(
          ours.filter((part) => !("id" in part && part.id === "c1")),
          theirs,
        )
        assert.strictEqual(failureOf(errorParts(ours)[0]?.error), "Toolkit/ToolNotFoundError")
        // No handler of ours can run an unknown tool, so its call is answered here; the known
        // call is left for the caller to run, as Effect leaves it with resolution disabled.
        assert.deepStrictEqual(historyShape(effectsHistory(ours)), {
          roles: ["assistant", "tool"],
          calls: [
            ["c1", "Nope", {}],
            // Effect's encoded params: the schema drops the excess key.
            ["c2", "GetWeather", { city: "Oslo" }],
          ],
          results: [["c1", "Nope", true, "ToolNotFoundError"]],
        })
        assert.deepStrictEqual(
          ours.map((part) => [part.type, "id" in part ? part.id : undefined]),
          mode === "generateText"
            ? [
                ["tool-call", "c1"],
                ["tool-call-error", "c1"],
                ["tool-call", "c2"],
                ["finish", undefined],
                ["tool-result", "c1"],
              ]
            : [
                ["tool-call", "c1"],
                ["tool-call-error", "c1"],
                ["tool-result", "c1"],
                ["tool-call", "c2"],
                ["finish", undefined],
              ],
        )
        // The calls left to run: those no result answers (toolCallErrors lists the others).
        const answered = new Set(ofType(ours, "tool-result").map((part) => part.id))
        assert.deepStrictEqual(
          ofType(ours, "tool-call")
            .filter((part) => !answered.has(part.id))
            .map((part) => part.id),
          ["c2"],
        )
        yield* exportHistory(ours)
      }),
    )

    it.effect("failureMode return: the error part is the failed result the Toolkit itself produces", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const parts = yield* runOurs(mode, {
          prompt: "hi",
          toolkit,
          disableToolCallResolution: true,
          unknownToolCalls: "return",
        }).pipe(
          Effect.provide(
            oneResponse(mode, [call("c1", "GetWeather", { city: 42 }), finish("tool-calls")]).layer,
          ),
          Effect.provide(layer),
        )
        const [error] = errorParts(parts)
        assert.strictEqual(failureOf(error?.error), "Toolkit/ToolParameterValidationError")
        // What Toolkit.handle returns for the same call, as it would with resolution enabled.
        const handlers = yield* toolkit
        const stream = yield* handlers.handle("GetWeather", { city: 42 } as never, "c1")
        const [toolkitResult] = yield* Stream.runCollect(stream)
        const history = effectsHistory(parts)
        assert.deepStrictEqual(historyShape(history).calls, [["c1", "GetWeather", { city: 42 }]])
        const ourResult = (history.content[1] as Prompt.ToolMessage).content[0] as Prompt.ToolResultPart
        assert.isTrue(ourResult.isFailure)
        assert.deepStrictEqual(ourResult.result, toolkitResult?.encodedResult)
        assert.deepStrictEqual(ran, [])
      }).pipe(Effect.provide(recordingHandlers().layer)),
    )

    it.effect(
      "failureMode error: fails with the Toolkit's ToolParameterValidationError, not InvalidOutputError",
      () =>
        Effect.gen(function* () {
          const options = { prompt: "hi", toolkit, disableToolCallResolution: true } as const
          const response = [call("c1", "GetTime", { zone: 7 }), finish("tool-calls")]
          const ours = yield* Effect.flip(
            runOurs(mode, { ...options, unknownToolCalls: "return" }).pipe(
              Effect.provide(oneResponse(mode, response).layer),
            ),
          )
          const theirs = yield* Effect.flip(
            runEffects(mode, options).pipe(Effect.provide(oneResponse(mode, response).layer)),
          )
          assert.strictEqual(failureOf(ours), "Toolkit/ToolParameterValidationError")
          assert.strictEqual(failureOf(theirs), "LanguageModel/InvalidOutputError")
        }),
    )
  })

  describe("params that are not JSON", () => {
    it.effect("a bigint becomes a model-visible error and the history still exports", () =>
      Effect.gen(function* () {
        const { ran, layer } = recordingHandlers()
        const parts = yield* runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
          Effect.provide(
            oneResponse(mode, [
              call("c1", "Nope", { n: 1n }),
              call("c2", "GetWeather", { city: 1n }),
              finish("tool-calls"),
            ]).layer,
          ),
          Effect.provide(layer),
        )
        const [unknown, known] = errorParts(parts)
        assert.strictEqual(unknown?.params, '{"n":"1n"}')
        assert.strictEqual(failureOf(known?.error), "Toolkit/ToolParameterValidationError")
        assert.include((known!.error.reason as AiError.ToolParameterValidationError).description, "bigint")
        assert.deepStrictEqual(ran, [])
        const json = yield* exportHistory(parts)
        assert.include(json, "1n")
      }),
    )

    it.effect("with failureMode error it fails with ToolParameterValidationError, not a defect", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
            Effect.provide(
              oneResponse(mode, [call("c1", "GetTime", { zone: 1n }), finish("tool-calls")]).layer,
            ),
          ),
        )
        assert.strictEqual(failureOf(error), "Toolkit/ToolParameterValidationError")
      }).pipe(Effect.provide(recordingHandlers().layer)),
    )
  })

  describe("parts that fail to decode for any other reason", () => {
    for (const [what, bad] of [
      ["a non-string id", { type: "tool-call", id: 7, name: "Nope", params: {} }],
      ["invalid metadata", { type: "tool-call", id: "c9", name: "Nope", params: {}, metadata: { x: 1n } }],
    ] as const) {
      it.effect(`${what} still fails the operation, and runs no handler`, () =>
        Effect.gen(function* () {
          const { ran, layer } = recordingHandlers()
          const parts = [call("c1", "GetWeather", { city: "Oslo" }), bad as never, finish("tool-calls")]
          // Streams decode chunk by chunk, like Effect: the bad part shares the known call's chunk.
          const model =
            mode === "generateText"
              ? scriptedModel({ generate: [parts] })
              : scriptedModel({ stream: [[parts]] })
          const error = yield* Effect.flip(
            runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls: "return" }).pipe(
              Effect.provide(model.layer),
              Effect.provide(layer),
            ),
          )
          assert.strictEqual(failureOf(error), "LanguageModel/InvalidOutputError")
          assert.deepStrictEqual(ran, [])
        }),
      )
    }
  })

  describe("through Chat (its history is Effect's own Prompt.fromResponseParts of the response)", () => {
    // The layer and the per-call form decorate the service Chat calls.
    const forms = [
      [
        "layer",
        <A, E, R>(self: Effect.Effect<A, E, R>) =>
          Effect.provide(self, ToolCallRecovery.layer({ unknownToolCalls: "return" })),
      ],
      ["withRecovery", ToolCallRecovery.withRecovery({ unknownToolCalls: "return" })],
    ] as const
    for (const [form, apply] of forms) {
      for (const disableToolCallResolution of [false, true]) {
        it.effect(
          `a turn with an unknown call (${form}), resolution ${disableToolCallResolution ? "disabled" : "enabled"}`,
          () => {
            const { ran, layer } = recordingHandlers()
            const model = oneResponse(mode, [
              call("c1", "Nope", { a: 1 }),
              call("c2", "GetWeather", { city: "Rome" }),
              finish("tool-calls"),
            ])
            const turn = Effect.gen(function* () {
              const chat = yield* Chat.empty
              const options = { prompt: "Weather in Rome?", toolkit, disableToolCallResolution }
              if (mode === "generateText") yield* chat.generateText(options)
              else yield* Stream.runDrain(chat.streamText(options))
              return chat
            })
            return Effect.gen(function* () {
              const chat = yield* (apply as (self: typeof turn) => typeof turn)(turn)
              const history = yield* Ref.get(chat.history)
              assert.deepStrictEqual(historyShape(history), {
                roles: ["user", "assistant", "tool"],
                calls: [
                  ["c1", "Nope", { a: 1 }],
                  ["c2", "GetWeather", { city: "Rome" }],
                ],
                results: disableToolCallResolution
                  ? [["c1", "Nope", true, "ToolNotFoundError"]]
                  : [
                      ["c1", "Nope", true, "ToolNotFoundError"],
                      ["c2", "GetWeather", false, undefined],
                    ],
              })
              assert.deepStrictEqual(ran, disableToolCallResolution ? [] : ["GetWeather:Rome"])
              const json = yield* chat.exportJson
              assert.include(json, "ToolNotFoundError")
              const restored = yield* Chat.fromJson(json)
              assert.deepStrictEqual(historyShape(yield* Ref.get(restored.history)), historyShape(history))
            }).pipe(Effect.provide(model.layer), Effect.provide(layer))
          },
        )
      }
    }
  })

  it.effect("an option value that is not statically known behaves by its value", () =>
    Effect.gen(function* () {
      const response = [call("c1", "Nope", {}), finish("tool-calls")]
      for (const unknownToolCalls of ["error", "return"] as ToolCallRecovery.UnknownToolCalls[]) {
        const outcome = yield* Effect.result(
          runOurs(mode, { prompt: "hi", toolkit, unknownToolCalls }).pipe(
            Effect.provide(oneResponse(mode, response).layer),
          ),
        )
        assert.strictEqual(outcome._tag === "Success", unknownToolCalls === "return")
      }
    }).pipe(Effect.provide(recordingHandlers().layer)),
  )

  it.effect("without a toolkit every call is unknown", () =>
    Effect.gen(function* () {
      const parts = yield* runOurs(mode, { prompt: "hi", unknownToolCalls: "return" }).pipe(
        Effect.provide(
          oneResponse(mode, [{ type: "text", text: "ok" }, call("c1", "Nope", {}), finish()]).layer,
        ),
      )
      const [error] = errorParts(parts)
      assert.deepStrictEqual((error!.error.reason as AiError.ToolNotFoundError).availableTools, [])
    }),
  )

  it.effect("a tool held by the toolkit but not offered by toolChoice resolves, as in Effect", () =>
    Effect.gen(function* () {
      const { ran, layer } = recordingHandlers()
      const model = oneResponse(mode, [call("c1", "GetTime", { zone: "UTC" }), finish("tool-calls")])
      const parts = yield* runOurs(mode, {
        prompt: "hi",
        toolkit,
        toolChoice: { oneOf: ["GetWeather"] },
        unknownToolCalls: "return",
      }).pipe(Effect.provide(model.layer), Effect.provide(layer))
      assert.deepStrictEqual(ran, ["GetTime:UTC"])
      assert.lengthOf(errorParts(parts), 0)
      assert.deepStrictEqual(
        model.requests[0]?.tools.map((tool) => tool.name),
        ["GetWeather"],
      )
    }),
  )

  it.effect("with deferred validation the option has nothing to do: calls come back raw", () =>
    Effect.gen(function* () {
      const parts = yield* runOurs(mode, {
        prompt: "hi",
        toolkit,
        disableToolCallResolution: true,
        toolCallValidation: "deferred",
        unknownToolCalls: "return",
      }).pipe(Effect.provide(oneResponse(mode, [call("c1", "Nope", { a: 1 }), finish("tool-calls")]).layer))
      assert.lengthOf(errorParts(parts), 0)
      assert.strictEqual(ofType(parts, "tool-call")[0]?.name, "Nope")
    }).pipe(Effect.provide(recordingHandlers().layer)),
  )

  it.effect("an approved call in the prompt runs once, and its result comes first", () =>
    Effect.gen(function* () {
      const ran: string[] = []
      const Guarded = Tool.make("Guarded", {
        parameters: Schema.Struct({ path: Schema.String }),
        success: Schema.String,
        needsApproval: true,
      })
      const guarded = Toolkit.make(Guarded)
      const handlers = guarded.toLayer({
        Guarded: ({ path }) =>
          Effect.sync(() => {
            ran.push(path)
            return `deleted ${path}`
          }),
      })
      const prompt = Prompt.make([
        { role: "user", content: "clean up" },
        {
          role: "assistant",
          content: [
            { type: "tool-call", id: "a1", name: "Guarded", params: { path: "/tmp/x" } },
            { type: "tool-approval-request", approvalId: "ap1", toolCallId: "a1" },
            { type: "tool-call", id: "a2", name: "Guarded", params: { path: "/etc" } },
            { type: "tool-approval-request", approvalId: "ap2", toolCallId: "a2" },
          ],
        },
        {
          role: "tool",
          content: [
            { type: "tool-approval-response", approvalId: "ap1", approved: true },
            { type: "tool-approval-response", approvalId: "ap2", approved: false, reason: "no" },
          ],
        },
      ])
      const model = oneResponse(mode, [
        { type: "text", text: "Done." },
        call("c1", "Nope", {}),
        finish("tool-calls"),
      ])
      const parts = yield* runOurs(mode, { prompt, toolkit: guarded, unknownToolCalls: "return" }).pipe(
        Effect.provide(model.layer),
        Effect.provide(handlers),
      )
      assert.deepStrictEqual(ran, ["/tmp/x"])
      const results = ofType(parts, "tool-result")
      assert.deepStrictEqual(
        results.map((part) => [part.id, part.isFailure]),
        [
          ["a1", false],
          ["a2", true],
          ["c1", true],
        ],
      )
      assert.strictEqual(parts[0]?.type, "tool-result")
      assert.lengthOf(errorParts(parts), 1)
      // The provider saw the approved result and the denial, as it would without the option.
      const sent = model.requests[0]?.prompt.content.find((message) => message.role === "tool")
      assert.deepStrictEqual(
        (sent as Prompt.ToolMessage).content.map((part) => part.type),
        ["tool-result", "tool-result"],
      )
    }),
  )
})

describe("generateObject passes through, as in Effect, with or without the layer", () => {
  const schema = Schema.Struct({ a: Schema.Number })
  const cases = [
    ["an unknown tool", call("c1", "Nope", {})],
    ["invalid params, failureMode return", call("c1", "GetWeather", { city: 1 })],
    ["invalid params, failureMode error", call("c1", "GetTime", { zone: 1 })],
  ] as const
  for (const [what, toolCall] of cases) {
    for (const disableToolCallResolution of [false, true]) {
      it.effect(`${what}, resolution ${disableToolCallResolution ? "disabled" : "enabled"}`, () =>
        Effect.gen(function* () {
          const response = [toolCall, { type: "text", text: '{"a":1}' } as const, finish("tool-calls")]
          const options = { prompt: "hi", schema, toolkit, disableToolCallResolution }
          const plain = yield* Effect.result(
            LanguageModel.generateObject(options).pipe(
              Effect.provide(oneResponse("generateText", response).layer),
            ),
          )
          const decorated = yield* Effect.result(
            LanguageModel.generateObject(options).pipe(
              Effect.provide(ToolCallRecovery.layer()),
              Effect.provide(oneResponse("generateText", response).layer),
            ),
          )
          assert.strictEqual(decorated._tag, plain._tag)
          if (plain._tag === "Failure" && decorated._tag === "Failure") {
            assert.strictEqual(failureOf(decorated.failure), failureOf(plain.failure))
          }
          if (plain._tag === "Success" && decorated._tag === "Success") {
            assert.deepStrictEqual(decorated.success.content, plain.success.content)
          }
        }).pipe(Effect.provide(recordingHandlers().layer)),
      )
    }
  }
})

describe('generateObject with unknownToolCalls: "return" (the layer form)', () => {
  const schema = Schema.Struct({ a: Schema.Number })
  for (const disableToolCallResolution of [false, true]) {
    it.effect(
      `an unknown call is answered, the value decoded, resolution ${disableToolCallResolution ? "disabled" : "enabled"}`,
      () =>
        Effect.gen(function* () {
          const { ran, layer } = recordingHandlers()
          const response = [
            call("c1", "Nope", {}),
            call("c2", "GetWeather", { city: "Oslo" }),
            { type: "text", text: '{"a":1}' } as const,
            finish("tool-calls"),
          ]
          const run = <A, E>(self: Effect.Effect<A, E, any>) =>
            self.pipe(
              Effect.provide(ToolCallRecovery.layer({ unknownToolCalls: "return" })),
              Effect.provide(oneResponse("generateText", response).layer),
              Effect.provide(layer),
            ) as Effect.Effect<A, E>
          const answer = yield* run(
            LanguageModel.generateObject({ prompt: "hi", schema, toolkit, disableToolCallResolution }),
          )
          assert.instanceOf(answer, LanguageModel.GenerateObjectResponse)
          assert.deepStrictEqual(answer.value, { a: 1 })
          const content = answer.content as ReadonlyArray<Part>
          assert.deepStrictEqual(
            errorParts(content).map((part) => [part.id, part.name, part.error.reason._tag]),
            [["c1", "Nope", "ToolNotFoundError"]],
          )
          assert.deepStrictEqual(
            (
              answer as unknown as { toolCallErrors: ReadonlyArray<ToolCallRecovery.ToolCallErrorPart> }
            ).toolCallErrors.map((part) => part.id),
            ["c1"],
          )
          assert.deepStrictEqual(
            ofType(content, "tool-result").map((part) => [part.id, part.isFailure]),
            // As in generateText: the failed results after the response's parts, before Effect's.
            disableToolCallResolution
              ? [["c1", true]]
              : [
                  ["c1", true],
                  ["c2", false],
                ],
          )
          assert.deepStrictEqual(ran, disableToolCallResolution ? [] : ["GetWeather:Oslo"])
          // Chat's generateObject goes through the same service.
          const history = yield* run(
            Effect.gen(function* () {
              const chat = yield* Chat.empty
              const object = yield* chat.generateObject({
                prompt: "hi",
                schema,
                toolkit,
                disableToolCallResolution,
              })
              return Object.assign(object, { history: yield* Ref.get(chat.history) })
            }),
          )
          assert.deepStrictEqual(
            historyShape((history as unknown as { history: Prompt.Prompt }).history).results[0],
            ["c1", "Nope", true, "ToolNotFoundError"],
          )
        }),
    )
  }
})

it("rejects an invalid option value as API misuse", () => {
  assert.throws(() => ToolCallRecovery.layer({ unknownToolCalls: "ignore" as never }), TypeError)
  assert.throws(
    () => ToolCallRecovery.generateText({ prompt: "hi", unknownToolCalls: "ignore" as never }),
    TypeError,
  )
  assert.throws(
    () => ToolCallRecovery.streamText({ prompt: "hi", unknownToolCalls: "ignore" as never }),
    TypeError,
  )
})
