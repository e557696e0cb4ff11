/**
 * The bound holds under the retries a LangChain user has: `.withRetry()` (a `RunnableRetry`,
 * which retries every error whatever its retryable mark), `maxRetries` on the chat model (its
 * `AsyncCaller`, around each HTTP request), and a retry loop of the caller's own — for any policy
 * (N re-runs, on an error or always, invoked or streamed), a model that leaks every time costs at
 * most `maxRecoveries + 1` = 2 upstream requests per user turn, and every run after the first
 * failure gets the typed error. Before, each re-run was a fresh first request with a fresh
 * budget (`.withRetry({ stopAfterAttempt: 2 })`: four requests). Over real HTTP, the real
 * `ChatOpenAI` against the replay server.
 */
import { fc } from "@fast-check/vitest"
import { ChatPromptTemplate } from "@langchain/core/prompts"
import type { Runnable } from "@langchain/core/runnables"
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type { ReplayRequest } from "@tool-rescue/testing"
import { describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { chatOpenAI, collect, functionTool, leak, replay, sentText } from "./support/harness.ts"

const sample = leak("L8")
const tools = [functionTool("GrepTool")]
const retrying = (request: ReplayRequest) => isRetryRequest(sentText(request.body))
const asking = (prompt: string) => (request: ReplayRequest) => request.rawBody.includes(prompt)

describe("Runnable .withRetry() (retries every error)", () => {
  it("on a chain around the model: the re-run gets repeated-markup with no request; two requests in all", async () => {
    const server = await replay(() => ({ content: sample.text }))
    const model = withToolCallRecovery(chatOpenAI(server)).bindTools(tools)
    const chain = ChatPromptTemplate.fromMessages([["human", "{question}"]])
      .pipe(model)
      .withRetry({ stopAfterAttempt: 2 })
    const error = await chain.invoke({ question: "Where is BaseService?" }).catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(server.requests.map(retrying)).toEqual([false, true])
  })
})

describe("the chat model's own maxRetries (AsyncCaller, inside the model around each request)", () => {
  it("maxRetries 6 (AsyncCaller's default): our error never reaches it; two requests, repeated-markup", async () => {
    const server = await replay(() => ({ content: sample.text }))
    const model = withToolCallRecovery(chatOpenAI(server, { maxRetries: 6 })).bindTools(tools)
    const error = await model.invoke("Where is BaseService?").catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(server.requests).toHaveLength(2)
  })

  it("a 4xx on the retry is final: surfaced, never sent again; a re-run of the turn gets no second retry", async () => {
    const server = await replay((request) =>
      retrying(request) ? { httpError: { status: 400, message: "bad retry" } } : { content: sample.text },
    )
    const model = withToolCallRecovery(chatOpenAI(server, { maxRetries: 6 })).bindTools(tools)
    const error = await model.invoke("Where is BaseService?").catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error)).toBe(false)
    expect((error as { status?: unknown }).status).toBe(400)
    expect(server.requests.map(retrying)).toEqual([false, true])
    // The caller runs the turn again: its question goes upstream again (the provider's error was
    // the provider's), but the retry it spent stays spent: the leak ends it, typed.
    const again = await model.invoke("Where is BaseService?").catch((e: unknown) => e)
    expect(isToolCallRecoveryError(again) && again.code).toBe("repeated-markup")
    expect(server.requests.map(retrying)).toEqual([false, true, false])
  })

  it("a 5xx on the retry: the model's AsyncCaller resends that same request (its transport retry), never the first one", async () => {
    const server = await replay((request) =>
      retrying(request) ? { httpError: { status: 503, message: "overloaded" } } : { content: sample.text },
    )
    const model = withToolCallRecovery(chatOpenAI(server, { maxRetries: 1 })).bindTools(tools)
    const error = await model.invoke("Where is BaseService?").catch((e: unknown) => e)
    expect(String(error)).toContain("overloaded")
    expect(server.requests.map(retrying)).toEqual([false, true, true])
    expect(server.requests[2]?.rawBody).toBe(server.requests[1]?.rawBody)
  })
})

/** One run of the turn, invoked or streamed to its end: the error it ended with, if any. */
async function run(model: Runnable<string>, prompt: string, stream: boolean): Promise<unknown> {
  try {
    if (stream) await collect(await model.stream(prompt))
    else await model.invoke(prompt)
    return undefined
  } catch (error) {
    return error
  }
}

/** When the caller runs the turn again: after an error, or whatever happened. */
type When = "error" | "always"

const aPolicy = fc.record({
  when: fc.constantFrom<When>("error", "always"),
  // How each run calls the model: `invoke` or `stream` read to its end.
  runs: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
})

describe("any retry loop of the caller's own: upstream requests per turn ≤ 2", () => {
  it("N re-runs, on an error or always, invoked or streamed", async () => {
    const server = await replay(() => ({ content: sample.text, chunkSize: 9 }))
    const model = withToolCallRecovery(chatOpenAI(server)).bindTools(tools)
    let turn = 0
    await fc.assert(
      fc.asyncProperty(aPolicy, async ({ when, runs }) => {
        const prompt = `Where is BaseService? (turn ${turn++})`
        const errors: unknown[] = []
        for (const stream of runs) {
          const error = await run(model, prompt, stream)
          errors.push(error)
          if (when === "error" && error === undefined) break
        }
        expect(server.requests.filter(asking(prompt)).length).toBeLessThanOrEqual(2)
        // The model leaks every time: every run fails with the typed error, never silence.
        for (const error of errors)
          expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
      }),
      { numRuns: 20 },
    )
  })

  it("maxRecoveries 2, every retry failing upstream: the re-runs share the turn's two retries", async () => {
    const server = await replay((request) =>
      retrying(request) ? { httpError: { status: 500, message: "boom" } } : { content: sample.text },
    )
    const model = withToolCallRecovery(chatOpenAI(server), { maxRecoveries: 2 }).bindTools(tools)
    let turn = 0
    await fc.assert(
      fc.asyncProperty(aPolicy, async ({ runs }) => {
        const prompt = `Where is BaseService? (turn ${turn++})`
        for (const stream of runs) {
          await run(model, prompt, stream)
        }
        const retries = server.requests.filter((r) => asking(prompt)(r) && retrying(r)).length
        expect(retries).toBeLessThanOrEqual(2)
      }),
      { numRuns: 15 },
    )
  })
})
