import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Ref, Stream } from "effect"
import { Chat, LanguageModel } from "effect/ai"
import { deltas, GetWeather, streamed, toolkit, weatherHandlers, withServer } from "./support.ts"

describe("openAiCompatibleModel through Effect's LanguageModel and Chat, over HTTP", () => {
  it.effect("generateText: text, reasoning, usage and metadata; the request carries the options", () =>
    withServer(
      [
        {
          reasoning: "The user greets me.",
          content: "Hello there.",
          usage: { inputTokens: 7, outputTokens: 5, reasoningTokens: 2 },
        },
      ],
      (server, model) =>
        Effect.gen(function* () {
          const response = yield* LanguageModel.generateText({
            prompt: [
              { role: "system", content: "Be brief." },
              { role: "user", content: "Hi" },
            ],
          }).pipe(Effect.provide(model))
          assert.strictEqual(response.text, "Hello there.")
          assert.strictEqual(response.reasoningText, "The user greets me.")
          assert.strictEqual(response.finishReason, "stop")
          assert.strictEqual(response.usage.inputTokens.total, 7)
          assert.strictEqual(response.usage.outputTokens.total, 5)
          assert.strictEqual(response.usage.outputTokens.reasoning, 2)
          assert.strictEqual(response.usage.outputTokens.text, 3)
          const request = server.requests[0]!
          assert.strictEqual(request.path, "/v1/chat/completions")
          assert.strictEqual(request.body?.model, "replay")
          assert.strictEqual(request.body?.stream, false)
          assert.deepStrictEqual(request.body?.messages, [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Hi" },
          ])
          assert.strictEqual(request.headers.authorization, "Bearer sk-test")
          assert.strictEqual(request.headers["x-team"], "tools")
        }),
      { apiKey: Redacted.make("sk-test"), headers: { "x-team": "tools" } },
    ),
  )

  it.effect("streamText: text and reasoning as deltas in blocks, usage in finish", () =>
    withServer(
      [
        {
          reasoning: "Thinking it over.",
          reasoningField: "reasoning",
          content: "Hello there, streamed.",
          chunkSize: 3,
          usage: { inputTokens: 4, outputTokens: 9 },
        },
      ],
      (server, model) =>
        Effect.gen(function* () {
          const parts = yield* streamed(model)
          assert.strictEqual(deltas(parts, "reasoning-delta"), "Thinking it over.")
          assert.strictEqual(deltas(parts, "text-delta"), "Hello there, streamed.")
          assert.isAbove(parts.filter((part) => part.type === "text-delta").length, 3)
          const types = parts.map((part) => part.type).filter((type) => !type.endsWith("-delta"))
          assert.deepStrictEqual(types, [
            "response-metadata",
            "reasoning-start",
            "reasoning-end",
            "text-start",
            "text-end",
            "finish",
          ])
          const finish = parts.at(-1)
          assert.strictEqual(finish?.type === "finish" && finish.usage.inputTokens.total, 4)
          assert.strictEqual(finish?.type === "finish" && finish.usage.outputTokens.total, 9)
          assert.strictEqual(server.requests[0]?.body?.stream, true)
          assert.deepStrictEqual(server.requests[0]?.body?.stream_options, { include_usage: true })
        }),
    ),
  )

  for (const stream of [false, true]) {
    const api = stream ? "streamed" : "JSON"
    it.effect(
      `a Chat agent loop with a tool call (${api}): Effect runs the handler, the history holds both`,
      () =>
        withServer(
          [
            {
              content: "Let me check.",
              toolCalls: [{ id: "call_1", name: "GetWeather", arguments: ['{"ci', 'ty": "Pa', 'ris"}'] }],
              usage: { inputTokens: 10, outputTokens: 6 },
            },
            { content: "It is sunny in Paris." },
          ],
          (server, model) => {
            const { cities, layer } = weatherHandlers()
            return Effect.gen(function* () {
              const chat = yield* Chat.empty
              const send = (prompt: string | []) =>
                stream
                  ? Stream.runCollect(chat.streamText({ prompt, toolkit }))
                  : Effect.map(chat.generateText({ prompt, toolkit }), (response) => response.content)
              const first = yield* send("Weather in Paris?")
              const calls = first.flatMap((part) => (part.type === "tool-call" ? [part] : []))
              assert.deepStrictEqual(
                calls.map((call) => [call.id, call.name, call.params]),
                [["call_1", "GetWeather", { city: "Paris" }]],
              )
              assert.deepStrictEqual(cities, ["Paris"])
              if (stream) {
                // The arguments stream as Effect's tool-params parts, in the deltas the server sent.
                assert.deepStrictEqual(
                  first.flatMap((part) => (part.type === "tool-params-delta" ? [part.delta] : [])),
                  ['{"ci', 'ty": "Pa', 'ris"}'],
                )
              }
              const finish = first.find((part) => part.type === "finish")
              assert.strictEqual(finish?.type === "finish" && finish.reason, "tool-calls")
              const second = yield* send([])
              assert.include(
                second
                  .flatMap((part) =>
                    part.type === "text" || part.type === "text-delta"
                      ? [part.type === "text" ? part.text : part.delta]
                      : [],
                  )
                  .join(""),
                "sunny in Paris",
              )
              // The second request sends the call and its result back, in OpenAI's shapes.
              const messages = server.requests[1]?.body?.messages ?? []
              assert.deepStrictEqual(
                messages.map((message) => message.role),
                ["user", "assistant", "tool"],
              )
              assert.deepStrictEqual(messages[1]?.tool_calls, [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: "GetWeather", arguments: '{"city":"Paris"}' },
                },
              ])
              assert.deepStrictEqual(messages[2], {
                role: "tool",
                tool_call_id: "call_1",
                content: "sunny in Paris",
              })
              const tools = server.requests[0]?.body?.tools as Array<{
                function: { name: string; parameters: unknown }
              }>
              assert.deepStrictEqual(
                tools.map((tool) => tool.function.name),
                [GetWeather.name],
              )
              assert.strictEqual(server.requests[0]?.body?.tool_choice, "auto")
              assert.lengthOf(yield* Ref.get(chat.history).pipe(Effect.map((history) => history.content)), 4)
            }).pipe(Effect.provide(model), Effect.provide(layer))
          },
        ),
    )
  }

  it.effect("tool-call arguments that are not JSON reach Effect's validation unchanged", () =>
    withServer([{ toolCalls: [{ id: "c1", name: "Gone", arguments: '{"broken' }] }], (_server, model) =>
      Effect.gen(function* () {
        const response = yield* LanguageModel.generateText({
          prompt: "hi",
          toolkit,
          disableToolCallResolution: true,
          toolCallValidation: "deferred",
        }).pipe(Effect.provide(model))
        assert.deepStrictEqual(
          response.toolCalls.map((call) => [call.name, call.params]),
          [["Gone", '{"broken']],
        )
      }),
    ),
  )
})
