/**
 * The bound holds under Effect's own retries: `Effect.retry` with `times`, a `Schedule`, or a
 * `while` — on every failure (its default), or only `isRetryable` ones — around
 * `LanguageModel.generateText` / `streamText` or a `Chat` send. A model that leaks every time
 * costs at most `maxRecoveries + 1` = 2 upstream requests per user turn, and the caller gets our
 * typed error (`AiError` of module `ToolCallRecovery`, reason `UnknownError`: never retryable).
 * Before, `Effect.retry({ times: N })` re-ran the failed call with a fresh budget: 2 (N + 1)
 * requests. Over real HTTP: the replay server and a provider on Effect's `HttpClient`.
 */
import { assert, describe, it } from "@effect/vitest"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { Effect, Ref, Schedule, Stream } from "effect"
import { type AiError, Chat, LanguageModel } from "effect/ai"
import fc from "fast-check"
import { isToolCallRecoveryError, ToolCallRecovery } from "../src/index.ts"
import { fileHandlers, files, qwenLeak } from "./support/leaks.ts"

const retrying = (server: ReplayServer) => server.requests.map((r) => isRetryRequest(r.body?.messages ?? []))

/** How the caller retries a failed call: Effect's own `Effect.retry` in its usual forms. */
type Policy =
  | { readonly kind: "times"; readonly times: number }
  | { readonly kind: "schedule"; readonly times: number }
  | { readonly kind: "while-retryable"; readonly times: number }

const aPolicy: fc.Arbitrary<Policy> = fc.record({
  kind: fc.constantFrom("times" as const, "schedule" as const, "while-retryable" as const),
  times: fc.integer({ min: 1, max: 4 }),
})

const retried = <A, R>(policy: Policy, effect: Effect.Effect<A, AiError.AiError, R>) => {
  switch (policy.kind) {
    case "times":
      return Effect.retry(effect, { times: policy.times })
    case "schedule":
      return Effect.retry(effect, Schedule.recurs(policy.times))
    case "while-retryable":
      return Effect.retry(effect, { times: policy.times, while: (e: AiError.AiError) => e.isRetryable })
    default:
      return policy satisfies never
  }
}

/** One call of the turn `prompt` as `mode` makes it. */
const call = (mode: "generateText" | "streamText" | "chat", prompt: string) => {
  const options = { prompt: [{ role: "user", content: prompt }] as const, toolkit: files }
  switch (mode) {
    case "generateText":
      return Effect.asVoid(LanguageModel.generateText(options))
    case "streamText":
      return Stream.runDrain(LanguageModel.streamText(options))
    case "chat":
      // The caller keeps one chat; the retry sends the same message again.
      return Effect.asVoid(Effect.flatMap(Chat.empty, (chat) => chat.generateText(options)))
    default:
      return mode satisfies never
  }
}

const withServer = <A, E>(script: ReplayScript, use: (server: ReplayServer) => Effect.Effect<A, E, never>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startReplayServer({ script })),
    use,
    (server) => Effect.promise(() => server.close()),
  )

describe("Effect.retry around a model that leaks every time: upstream requests per turn ≤ 2", () => {
  it.effect("any policy (times, Schedule.recurs, while isRetryable), generateText / streamText / Chat", () =>
    withServer(
      () => ({ content: `Let me read it. ${qwenLeak}`, chunkSize: 6 }),
      (server) =>
        Effect.promise(async () => {
          const model = openAiCompatibleModel({ baseURL: server.url, model: "replay" })
          const { layer } = fileHandlers()
          let turn = 0
          await fc.assert(
            fc.asyncProperty(
              aPolicy,
              fc.constantFrom("generateText" as const, "streamText" as const, "chat" as const),
              async (policy, mode) => {
                const prompt = `Read src/a.ts (turn ${turn++})`
                const error = await Effect.runPromise(
                  retried(policy, call(mode, prompt)).pipe(
                    Effect.flip,
                    Effect.provide(ToolCallRecovery.layer()),
                    Effect.provide(model),
                    Effect.provide(layer),
                  ),
                )
                const requests = server.requests.filter((r) => r.rawBody.includes(prompt)).length
                assert.isAtMost(requests, 2)
                assert.isTrue(isToolCallRecoveryError(error))
                assert.isFalse(error.isRetryable)
              },
            ),
            { numRuns: 20 },
          )
        }),
    ),
  )

  it.effect("a Chat keeps no malformed response, and a retried send shares its turn's budget", () =>
    withServer(
      () => ({ content: qwenLeak }),
      (server) =>
        Effect.gen(function* () {
          const chat = yield* Chat.empty
          const options = { prompt: "Read src/a.ts", toolkit: files }
          const error = yield* chat.generateText(options).pipe(Effect.retry({ times: 3 }), Effect.flip)
          assert.isTrue(isToolCallRecoveryError(error))
          assert.deepStrictEqual(retrying(server), [false, true])
          assert.lengthOf((yield* Ref.get(chat.history)).content, 0)
        }).pipe(
          Effect.provide(ToolCallRecovery.layer()),
          Effect.provide(openAiCompatibleModel({ baseURL: server.url, model: "replay" })),
          Effect.provide(fileHandlers().layer),
        ),
    ),
  )
})

describe("provider errors on the retry are final", () => {
  for (const status of [400, 503]) {
    it.effect(
      `HTTP ${status} on the retry: surfaced; a re-run by Effect.retry sends the question again, never a second retry`,
      () =>
        withServer(
          (request) =>
            isRetryRequest(request.body?.messages ?? [])
              ? { httpError: { status, message: "retry failed" } }
              : { content: qwenLeak },
          (server) =>
            Effect.gen(function* () {
              const options = { prompt: "Read src/a.ts", toolkit: files }
              const once = yield* Effect.flip(LanguageModel.generateText(options))
              // The provider's error, as it is (not ours), and not retryable.
              assert.isFalse(isToolCallRecoveryError(once))
              assert.isFalse(once.isRetryable)
              assert.deepStrictEqual(retrying(server), [false, true])
              // A retry of everything: the question goes again (its budget spent), the leak ends it.
              const again = yield* LanguageModel.generateText(options).pipe(
                Effect.retry({ times: 3 }),
                Effect.flip,
              )
              assert.isTrue(isToolCallRecoveryError(again))
              assert.deepStrictEqual(retrying(server), [false, true, false])
            }).pipe(
              Effect.provide(ToolCallRecovery.layer()),
              Effect.provide(openAiCompatibleModel({ baseURL: server.url, model: "replay" })),
              Effect.provide(fileHandlers().layer),
            ),
        ),
    )
  }
})
