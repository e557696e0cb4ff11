/**
 * The lower bound of the peer range: the same behaviours through `openai@7.0.0` (installed as
 * `openai-oldest`). The wrapper imports nothing from `openai` at run time, so it works with
 * whichever copy the caller constructs its client from.
 */
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { type ReplayScript, startReplayServer } from "@tool-rescue/testing"
import OpenAI from "openai-oldest"
import { ChatCompletionStream } from "openai-oldest/lib/ChatCompletionStream"
import { Stream } from "openai-oldest/streaming"
import { afterEach, describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { collect, leak } from "./support/harness.ts"

const sample = leak("L8")
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))
const call = { name: "GrepTool", arguments: '{"pattern":"x"}', id: "call_grep" }
const chatTools = sample.tools.map((name) => ({
  type: "function" as const,
  function: { name, parameters: {} },
}))
const closers: Array<() => Promise<void>> = []

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function oldest(script: ReplayScript) {
  const server = await startReplayServer({ script })
  closers.push(() => server.close())
  return {
    server,
    client: withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })),
  }
}

const alternate = (_request: unknown, turn: number) =>
  turn % 2 === 0 ? { content: sample.text, chunkSize: 3 } : { toolCalls: [call] }

describe("openai@7.0.0", () => {
  it("is the version under test", async () => {
    const { VERSION } = await import("openai-oldest/version")
    expect(VERSION).toBe("7.0.0")
  })

  it("streaming chat: the recovered stream, tee() and withResponse()", async () => {
    const { client, server } = await oldest(alternate)
    const params = {
      model: "m",
      messages: [{ role: "user" as const, content: "go" }],
      tools: chatTools,
      stream: true as const,
    }
    const { data, request_id } = await client.chat.completions.create(params).withResponse()
    expect(data).toBeInstanceOf(Stream)
    expect(request_id).toBe("req_replay_0")
    const [left, right] = data.tee()
    const [a, b] = await Promise.all([collect(left), collect(right)])
    expect(a).toEqual(b)
    expect(a.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe(safePrefix)
    expect(a.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    expect(server.requests).toHaveLength(2)
    const final = await ChatCompletionStream.fromReadableStream(
      (await client.chat.completions.create(params)).toReadableStream(),
    ).finalChatCompletion()
    expect(final.choices[0]?.message.tool_calls).toHaveLength(1)
  })

  it("non-streaming chat, stream() and runTools()", async () => {
    const { client } = await oldest(alternate)
    const body = { model: "m", messages: [{ role: "user" as const, content: "go" }], tools: chatTools }
    const completion = await client.chat.completions.create(body)
    expect(completion.choices[0]?.message.content).toBeNull()
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1)
    const streamed = await client.chat.completions.stream(body).finalChatCompletion()
    expect(streamed.choices[0]?.message.tool_calls).toHaveLength(1)
  })

  it("Responses: responses.stream().finalResponse() and create()", async () => {
    const { client } = await oldest(alternate)
    const body = {
      model: "m",
      input: "go",
      tools: sample.tools.map((name) => ({ type: "function" as const, name, parameters: {}, strict: false })),
    }
    const final = await client.responses.stream(body).finalResponse()
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call"])
    expect(final.output_text).toBe(safePrefix)
    const response = await client.responses.create(body)
    expect(response.output.map((item) => item.type)).toEqual(["function_call"])
  })

  it("a second malformed response throws ToolCallRecoveryError", async () => {
    const { client } = await oldest(() => ({ content: sample.text }))
    const error = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "go" }], tools: chatTools })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(isToolCallRecoveryError(error)).toBe(true)
  })
})
