import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { type Harness, harnessPerTest, QWEN_LEAK, READ_FILE_TOOL } from "./support/harness.ts"

const startHarness = harnessPerTest()

const request = {
  model: "qwen3-coder",
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [READ_FILE_TOOL],
}

function client(h: Harness): OpenAI {
  return new OpenAI({ baseURL: h.proxy.url, apiKey: "sk-secret-test-key", maxRetries: 0 })
}

describe("chat completions through the proxy (the real openai client)", () => {
  it("streaming: a leak is withheld, retried once with the instruction, and the call spliced in", async () => {
    const harness = await startHarness([
      { content: `Reading it.\n${QWEN_LEAK}`, chunkSize: 3 },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const stream = await client(harness).chat.completions.create({ ...request, stream: true })
    let text = ""
    const calls: string[] = []
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        if (call.function?.name) calls.push(call.function.name)
    }
    expect(text).toBe("Reading it.\n")
    expect(calls).toEqual(["read_file"])
    expect(harness.turns()).toBe(2)
    const retry = harness.upstream.requests[1]!
    expect(retry.body?.messages?.[0]?.role).toBe("system")
    expect(retry.body?.messages?.slice(1)).toEqual(request.messages)
    expect(retry.headers.authorization).toBe("Bearer sk-secret-test-key")
    expect(harness.failed).toHaveLength(1)
    expect(harness.failed[0]!.text).toContain("<function=read_file>")
    expect(JSON.stringify(harness.failed)).not.toContain("sk-secret")
  })

  it("non-streaming: the recovered completion holds the call and none of the markup", async () => {
    const harness = await startHarness([
      { content: `Reading it.\n${QWEN_LEAK}` },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const completion = await client(harness).chat.completions.create(request)
    const message = completion.choices[0]!.message
    expect(message.tool_calls?.map((c) => (c.type === "function" ? c.function.name : c.type))).toEqual([
      "read_file",
    ])
    expect(message.content ?? "").not.toContain("<function")
    expect(harness.turns()).toBe(2)
  })

  it("streaming: a second leak ends the stream with a repeated-markup error event", async () => {
    const harness = await startHarness([
      { content: QWEN_LEAK, chunkSize: 5 },
      { content: QWEN_LEAK, chunkSize: 5 },
    ])
    const stream = await client(harness).chat.completions.create({ ...request, stream: true })
    let text = ""
    const error = await (async () => {
      try {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    expect(text).toBe("")
    expect(harness.turns()).toBe(2)
  })

  it("non-streaming: a second leak is an HTTP 422 with the error body", async () => {
    const harness = await startHarness([{ content: QWEN_LEAK }, { content: QWEN_LEAK }])
    const error = await client(harness)
      .chat.completions.create(request)
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422)
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    expect(harness.turns()).toBe(2)
  })
})
