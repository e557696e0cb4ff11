/**
 * The bound holds under the retries an AI SDK user has: the SDK's own `maxRetries` (it retries
 * only a retryable `APICallError`: never our error, and no longer a failed retry's), an agent
 * loop (`stopWhen`), and a retry loop of the caller's own around `generateText` / `streamText`.
 * For any policy, a model that leaks every time costs at most `maxRecoveries + 1` = 2 upstream
 * requests per user turn, and every run gets the typed error. Before, a caller's re-run was a
 * fresh first request with a fresh budget. Over real HTTP: `@ai-sdk/openai-compatible` against
 * the replay server.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import {
  type ReplayRequest,
  type ReplayServer,
  type ReplayStep,
  startReplayServer,
} from "@tool-rescue/testing"
import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from "ai"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"

const LEAK =
  "Deleting it.\n<function=delete_file>\n<parameter=path>\nold.log\n</parameter>\n</function>\n</tool_call>"

const retrying = (request: ReplayRequest) => isRetryRequest(request.rawBody)

function setup(script: (request: ReplayRequest) => ReplayStep) {
  let server: ReplayServer
  const executed: string[] = []
  const tools = {
    delete_file: tool({
      description: "Delete a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        executed.push(path)
        return `deleted ${path}`
      },
    }),
  }
  beforeAll(async () => {
    server = await startReplayServer({ script })
  })
  afterAll(() => server.close())
  const model = () =>
    wrapLanguageModel({
      model: createOpenAICompatible({ name: "replay", baseURL: server.url, apiKey: "t" }).chatModel("q"),
      middleware: toolCallRecoveryMiddleware(),
    })
  return { server: () => server, model, tools, executed }
}

/** One run of the turn `prompt`: the error it ended with (`undefined`: it answered). */
async function run(
  options: Parameters<typeof generateText>[0] & { prompt: string },
  stream: boolean,
): Promise<unknown> {
  if (!stream)
    return generateText(options).then(
      () => undefined,
      (error: unknown) => error,
    )
  let error: unknown
  const result = streamText({ ...options, onError: () => {} })
  try {
    for await (const part of result.fullStream) if (part.type === "error") error = part.error
  } catch (thrown) {
    error = thrown
  }
  return error
}

const aPolicy = fc.record({
  // The SDK's own retries, per model call.
  maxRetries: fc.integer({ min: 0, max: 3 }),
  // The caller's runs of the turn (streamed or not), and when it runs it again.
  runs: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  when: fc.constantFrom("error" as const, "always" as const),
  // An agent loop or one step.
  steps: fc.constantFrom(1, 3),
})

describe("a model that leaks every time: upstream requests per turn ≤ 2, the typed error each run", () => {
  const { server, model, tools, executed } = setup(() => ({ content: LEAK, chunkSize: 7 }))
  let turn = 0

  it("any policy: maxRetries N, an agent loop or not, a caller's re-runs on error or always, streamed or not", async () => {
    const wrapped = model()
    await fc.assert(
      fc.asyncProperty(aPolicy, async ({ maxRetries, runs, when, steps }) => {
        const prompt = `Clean up (turn ${turn++})`
        for (const stream of runs) {
          const error = await run(
            { model: wrapped, prompt, tools, maxRetries, stopWhen: isStepCount(steps) },
            stream,
          )
          expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
          if (when === "error" && error === undefined) break
        }
        expect(server().requests.filter((r) => r.rawBody.includes(prompt)).length).toBeLessThanOrEqual(2)
        expect(executed).toEqual([])
      }),
      { numRuns: 25 },
    )
  })
})

describe("provider errors on the retry are final", () => {
  for (const status of [400, 503]) {
    const { server, model, tools } = setup((request) =>
      retrying(request)
        ? { httpError: { status, message: "retry failed", headers: { "retry-after-ms": "0" } } }
        : { content: LEAK },
    )
    it(`HTTP ${status} on the retry, default maxRetries: surfaced, never sent again; a re-run gets no second retry`, async () => {
      const wrapped = model()
      const prompt = `Clean up (${status})`
      const error = await run({ model: wrapped, prompt, tools }, false)
      expect(isToolCallRecoveryError(error)).toBe(false)
      expect(String(error)).toContain("retry failed")
      expect(server().requests.map(retrying)).toEqual([false, true])
      const again = await run({ model: wrapped, prompt, tools }, true)
      expect(isToolCallRecoveryError(again) && again.code).toBe("repeated-markup")
      expect(server().requests.map(retrying)).toEqual([false, true, false])
    })
  }
})
