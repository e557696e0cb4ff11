/**
 * The bound holds under the retries an `openai` user has: the client's `maxRetries` (it resends
 * a request on a status — 408, 409, 429, 5xx — never on our error, which comes after a 200), and
 * a retry loop of the caller's own around `create` or the SDK's helpers. For any policy, a model
 * that leaks every time costs at most `maxRecoveries + 1` = 2 upstream requests per user turn,
 * and every run gets the typed error. Before, a caller's re-run was a fresh first request with a
 * fresh budget. Over real HTTP: the real client against the replay server.
 */
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type { ReplayRequest, ReplayServer, ReplayStep } from "@tool-rescue/testing"
import { startReplayServer } from "@tool-rescue/testing"
import fc from "fast-check"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { chatTool, responsesTool } from "./support/harness.ts"

const LEAK =
  "Reading it.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

const retrying = (request: ReplayRequest) => isRetryRequest(request.rawBody)

function serving(script: (request: ReplayRequest) => ReplayStep): () => ReplayServer {
  let server: ReplayServer
  beforeAll(async () => {
    server = await startReplayServer({ script })
  })
  afterAll(() => server.close())
  return () => server
}

/** How one run sends the turn: the API, streamed or not, `create` or the SDK's stream helper. */
type Way = "chat" | "chat-stream" | "chat-helper" | "responses" | "responses-stream"

/** One run of the turn `prompt`: the error it ended with (`undefined`: it answered). */
async function run(client: OpenAI, prompt: string, way: Way): Promise<unknown> {
  const chat = {
    model: "m",
    messages: [{ role: "user" as const, content: prompt }],
    tools: [chatTool("read_file")],
  }
  const responses = { model: "m", input: prompt, tools: [responsesTool("read_file")] }
  try {
    switch (way) {
      case "chat":
        await client.chat.completions.create(chat)
        break
      case "chat-stream":
        for await (const _ of await client.chat.completions.create({ ...chat, stream: true }));
        break
      case "chat-helper":
        await client.chat.completions.stream(chat).finalChatCompletion()
        break
      case "responses":
        await client.responses.create(responses)
        break
      case "responses-stream":
        for await (const _ of await client.responses.create({ ...responses, stream: true }));
        break
      default:
        return way satisfies never
    }
    return undefined
  } catch (error) {
    return error
  }
}

/** A turn's runs: one API (a client resends on the API it used), any way of calling it. */
const someWays = fc.oneof(
  fc.array(fc.constantFrom<Way>("chat", "chat-stream", "chat-helper"), { minLength: 1, maxLength: 4 }),
  fc.array(fc.constantFrom<Way>("responses", "responses-stream"), { minLength: 1, maxLength: 4 }),
)

describe("a model that leaks every time: upstream requests per turn ≤ 2, the typed error each run", () => {
  const server = serving(() => ({ content: LEAK, chunkSize: 6 }))
  let turn = 0

  it("any policy: the client's maxRetries N, a caller's re-runs on error or always, any API and way", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        someWays,
        fc.constantFrom("error" as const, "always" as const),
        async (maxRetries, ways, when) => {
          const client = withToolCallRecovery(new OpenAI({ baseURL: server().url, apiKey: "t", maxRetries }))
          const prompt = `Read a.ts (turn ${turn++})`
          for (const way of ways) {
            const error = await run(client, prompt, way)
            expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
            if (when === "error" && error === undefined) break
          }
          expect(server().requests.filter((r) => r.rawBody.includes(prompt)).length).toBeLessThanOrEqual(2)
        },
      ),
      { numRuns: 25 },
    )
  })

  it("a re-run answered from memory rejects through every path of the SDK's promise", async () => {
    const client = withToolCallRecovery(new OpenAI({ baseURL: server().url, apiKey: "t" }))
    const body = {
      model: "m",
      messages: [{ role: "user" as const, content: "Read b.ts" }],
      tools: [chatTool("read_file")],
    }
    const repeated = (promise: PromiseLike<unknown>) =>
      Promise.resolve(promise).then(
        () => undefined,
        (error: unknown) => isToolCallRecoveryError(error) && error.code,
      )
    expect(await repeated(client.chat.completions.create(body))).toBe("repeated-markup")
    const before = server().requests.length
    // The stream helper wraps it in its OpenAIError (ours as cause): the guard still knows it.
    const again = await Promise.all([
      repeated(client.chat.completions.create(body)),
      repeated(client.chat.completions.create(body).withResponse()),
      repeated(client.chat.completions.create(body).asResponse()),
      repeated(client.chat.completions.stream(body).finalChatCompletion()),
    ])
    expect(again).toEqual(Array(4).fill("repeated-markup"))
    expect(server().requests.length).toBe(before)
  })
})

describe("provider errors on the retry are final", () => {
  const server = serving((request) =>
    retrying(request)
      ? request.rawBody.includes("(400)")
        ? { httpError: { status: 400, message: "bad retry" } }
        : { httpError: { status: 503, message: "overloaded", headers: { "retry-after-ms": "0" } } }
      : { content: LEAK },
  )

  it("HTTP 400 on the retry: surfaced, never sent again; a re-run sends the question again, no second retry", async () => {
    const client = withToolCallRecovery(new OpenAI({ baseURL: server().url, apiKey: "t" }))
    const prompt = "Read a.ts (400)"
    const error = await run(client, prompt, "chat")
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    const mine = () =>
      server()
        .requests.filter((r) => r.rawBody.includes(prompt))
        .map(retrying)
    expect(mine()).toEqual([false, true])
    const again = await run(client, prompt, "chat-stream")
    expect(isToolCallRecoveryError(again) && again.code).toBe("repeated-markup")
    expect(mine()).toEqual([false, true, false])
  })

  it("HTTP 503 on the retry: the client's maxRetries resends that same request (its transport retry), never the first", async () => {
    const client = withToolCallRecovery(new OpenAI({ baseURL: server().url, apiKey: "t", maxRetries: 1 }))
    const prompt = "Read a.ts (503)"
    const error = await run(client, prompt, "chat")
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    const mine = server().requests.filter((r) => r.rawBody.includes(prompt))
    expect(mine.map(retrying)).toEqual([false, true, true])
    expect(mine[2]?.rawBody).toBe(mine[1]?.rawBody)
  })
})
