import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { startReplayServer } from "@tool-rescue/testing"
import { Duration, Effect, Schedule, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { openAiCompatibleModel } from "../src/index.ts"
import { aiErrorOf, streamed, withServer } from "./support.ts"

const generate = LanguageModel.generateText({ prompt: "Hi" })
const both = [
  { api: "JSON", run: (model: Parameters<typeof streamed>[0]) => Effect.provide(generate, model) },
  { api: "SSE", run: (model: Parameters<typeof streamed>[0]) => streamed(model) },
] as const

describe("failures are AiErrors whose isRetryable is right", () => {
  const statuses = [
    { status: 429, tag: "RateLimitError", retryable: true },
    { status: 500, tag: "InternalProviderError", retryable: true },
    { status: 503, tag: "InternalProviderError", retryable: true },
    { status: 400, tag: "InvalidRequestError", retryable: false },
    { status: 401, tag: "AuthenticationError", retryable: false },
    { status: 403, tag: "AuthenticationError", retryable: false },
    { status: 404, tag: "UnknownError", retryable: false },
    { status: 422, tag: "UnknownError", retryable: false },
  ] as const
  for (const { api, run } of both) {
    for (const { status, tag, retryable } of statuses) {
      it.effect(`HTTP ${status} (${api}) → ${tag}, retryable: ${retryable}`, () =>
        withServer([{ httpError: { status, message: `upstream says ${status}` } }], (_server, model) =>
          Effect.gen(function* () {
            const error = yield* aiErrorOf(run(model))
            assert.strictEqual(error.module, "OpenAiCompatibleModel")
            assert.strictEqual(error.reason._tag, tag)
            assert.strictEqual(error.isRetryable, retryable)
            if (status !== 429) assert.include(error.message, `upstream says ${status}`)
          }),
        ),
      )
    }
  }

  it.effect("429 keeps the server's retry-after", () =>
    withServer([{ httpError: { status: 429, headers: { "retry-after": "7" } } }], (_server, model) =>
      Effect.gen(function* () {
        const error = yield* aiErrorOf(Effect.provide(generate, model))
        assert.strictEqual(error.reason._tag, "RateLimitError")
        assert.deepStrictEqual(error.retryAfter, Duration.seconds(7))
      }),
    ),
  )

  it.effect("Effect.retry while isRetryable gets past a 503 and stops at a 400", () =>
    withServer(
      [
        { httpError: { status: 503 } },
        { content: "Back." },
        { httpError: { status: 400 } },
        { content: "never" },
      ],
      (server, model) =>
        Effect.gen(function* () {
          const retrying = <A, E extends { readonly isRetryable: boolean }>(effect: Effect.Effect<A, E>) =>
            Effect.retry(effect, { while: (error) => error.isRetryable, schedule: Schedule.recurs(2) })
          const answer = yield* retrying(Effect.provide(generate, model))
          assert.strictEqual(answer.text, "Back.")
          const error = yield* aiErrorOf(retrying(Effect.provide(generate, model)))
          assert.strictEqual(error.reason._tag, "InvalidRequestError")
          assert.lengthOf(server.requests, 3)
        }),
    ),
  )

  for (const { api, run } of both) {
    it.effect(`a refused connection (${api}) is a retryable NetworkError naming the URL`, () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => startReplayServer({ script: [] }))
        yield* Effect.promise(() => server.close())
        const error = yield* aiErrorOf(run(openAiCompatibleModel({ baseURL: server.url, model: "m" })))
        assert.strictEqual(error.reason._tag, "NetworkError")
        assert.isTrue(error.isRetryable)
        assert.include(error.message, server.url)
      }),
    )
  }

  const cuts = [
    { what: "a dropped connection mid-stream", interrupt: { kind: "drop", afterChunks: 2 } },
    { what: "a stream that ends without [DONE]", interrupt: { kind: "end", afterChunks: 2 } },
  ] as const
  for (const { what, interrupt } of cuts) {
    it.effect(`${what} is a retryable NetworkError, after the parts before it`, () =>
      withServer([{ content: "Hello there.", chunkSize: 2, interrupt }], (_server, model) =>
        Effect.gen(function* () {
          const seen: string[] = []
          const error = yield* aiErrorOf(
            Stream.runForEach(LanguageModel.streamText({ prompt: "Hi" }), (part) =>
              Effect.sync(() => seen.push(part.type)),
            ).pipe(Effect.provide(model)),
          )
          assert.strictEqual(error.reason._tag, "NetworkError")
          assert.isTrue(error.isRetryable)
          assert.include(seen, "text-delta")
          assert.notInclude(seen, "finish")
        }),
      ),
    )
  }

  it.effect("an error event inside the stream is a retryable server error", () =>
    withServer(
      [
        {
          content: "Hello",
          chunkSize: 1,
          interrupt: { kind: "error", afterChunks: 2, error: { message: "overloaded" } },
        },
      ],
      (_server, model) =>
        Effect.gen(function* () {
          const error = yield* aiErrorOf(streamed(model))
          assert.strictEqual(error.reason._tag, "InternalProviderError")
          assert.isTrue(error.isRetryable)
          assert.include(error.message, "overloaded")
        }),
    ),
  )

  for (const { api, body, type } of [
    { api: "JSON", body: "{nope", type: "application/json" },
    { api: "JSON", body: '{"object": "list", "data": []}', type: "application/json" },
    { api: "SSE", body: "data: {nope\n\n", type: "text/event-stream" },
  ]) {
    it.effect(`a response that is no chat completion (${api}: ${body.trim()}) is not retryable`, () =>
      Effect.acquireUseRelease(
        Effect.promise(async () => {
          const server = createServer((_request, response) => {
            response.writeHead(200, { "content-type": type })
            response.end(body)
          })
          await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
          return server
        }),
        (server) => {
          const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
          const model = openAiCompatibleModel({ baseURL, model: "m" })
          return Effect.gen(function* () {
            const error = yield* aiErrorOf(api === "SSE" ? streamed(model) : Effect.provide(generate, model))
            assert.strictEqual(error.reason._tag, "InvalidResponseError")
            assert.isFalse(error.isRetryable)
          })
        },
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve()))),
      ),
    )
  }
})
