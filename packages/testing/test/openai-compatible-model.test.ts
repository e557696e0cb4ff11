import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Exit, Stream } from "effect"
import { AiError, LanguageModel } from "effect/ai"
import { afterEach, describe, expect, it } from "vitest"
import { openAiCompatibleModel } from "../src/effect.ts"
import { startReplayServer } from "../src/replay.ts"

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** A server that answers every request with `body` as SSE, then ends the response cleanly. */
async function sseServer(body: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" })
    response.end(body)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

const chunk = (delta: object) =>
  `data: ${JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta }] })}\n\n`

const stream = (baseURL: string) =>
  Effect.runPromiseExit(
    Stream.runCollect(LanguageModel.streamText({ prompt: "Hi" })).pipe(
      Effect.provide(openAiCompatibleModel({ baseURL, model: "m" })),
    ),
  )

const failure = (exit: Exit.Exit<unknown, unknown>): unknown =>
  Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined

describe("openAiCompatibleModel (@tool-rescue/testing/effect)", () => {
  it("streams text and usage from the replay server, and answers JSON", async () => {
    const server = await startReplayServer({
      script: [
        { content: "Hello there.", chunkSize: 4, usage: { inputTokens: 3, outputTokens: 2 } },
        { content: "Plain." },
      ],
    })
    try {
      const streamed = await stream(server.url)
      expect(Exit.isSuccess(streamed)).toBe(true)
      const parts = Exit.isSuccess(streamed) ? streamed.value : []
      const text = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("")
      expect(text).toBe("Hello there.")
      const finish = parts.find((part) => part.type === "finish")
      expect(finish?.type === "finish" && finish.usage.inputTokens.total).toBe(3)
      const generated = await Effect.runPromise(
        LanguageModel.generateText({ prompt: "Hi" }).pipe(
          Effect.provide(openAiCompatibleModel({ baseURL: server.url, model: "m", apiKey: "k" })),
        ),
      )
      expect(generated.text).toBe("Plain.")
      expect(server.requests[1]?.headers.authorization).toBe("Bearer k")
    } finally {
      await server.close()
    }
  })

  it("a stream that ends without [DONE] is a provider error, not an answer", async () => {
    const exit = await stream(await sseServer(chunk({ content: "Hel" })))
    expect(AiError.isAiError(failure(exit))).toBe(true)
    expect((failure(exit) as AiError.AiError).message).toContain("[DONE]")
  })

  it("an error event and malformed SSE JSON are provider errors", async () => {
    for (const body of [
      `${chunk({ content: "Hel" })}data: {"error":{"message":"boom"}}\n\n`,
      "data: {nope\n\n",
    ]) {
      const exit = await stream(await sseServer(body))
      expect(AiError.isAiError(failure(exit))).toBe(true)
    }
  })
})
