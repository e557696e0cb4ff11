import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { type Harness, harnessPerTest, QWEN_LEAK } from "./support/harness.ts"

const startHarness = harnessPerTest()

const request = {
  model: "qwen3-coder",
  instructions: "You are a coding agent.",
  input: "Show me a.ts",
  tools: [{ type: "function" as const, name: "read_file", parameters: { type: "object" }, strict: false }],
}
const client = (h: Harness) => new OpenAI({ baseURL: h.proxy.url, apiKey: "sk-test", maxRetries: 0 })

describe("OpenAI Responses through the proxy (the real openai client)", () => {
  it("streaming: the SDK's ResponseStream accepts the spliced stream, which ends with the function call", async () => {
    const harness = await startHarness([
      { content: `Reading it.\n${QWEN_LEAK}`, chunkSize: 6 },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const stream = client(harness).responses.stream(request)
    let text = ""
    stream.on("response.output_text.delta", (event) => {
      text += event.delta
    })
    const response = await stream.finalResponse()
    expect(text).toBe("Reading it.\n")
    const call = response.output.find((item) => item.type === "function_call")
    expect(call?.type === "function_call" && call.name).toBe("read_file")
    expect(JSON.stringify(response.output)).not.toContain("<function=")
    expect(harness.upstream.requests[1]!.body?.instructions).toMatch(/^You are a coding agent\.\n\n\S/)
    expect(harness.turns()).toBe(2)
  })

  it("non-streaming: the response holds the call and none of the markup", async () => {
    const harness = await startHarness([
      { content: QWEN_LEAK },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const response = await client(harness).responses.create(request)
    expect(response.output.map((item) => item.type)).toEqual(["function_call"])
    expect(response.output_text).toBe("")
  })

  it("a second leak: an SSE error event with code repeated-markup (streaming), a 422 (not)", async () => {
    const harness = await startHarness([
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
    ])
    const streamed = await client(harness)
      .responses.stream(request)
      .finalResponse()
      .catch((error: unknown) => error)
    expect(streamed).toBeInstanceOf(OpenAI.APIError)
    expect((streamed as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    const plain = await client(harness)
      .responses.create(request)
      .catch((error: unknown) => error)
    expect((plain as InstanceType<typeof OpenAI.APIError>).status).toBe(422)
    expect((plain as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    expect(harness.turns()).toBe(4)
  })
})
