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

  it("a second leak: a terminal response.failed with code invalid_prompt (streaming), a 422 (not); a resend is answered without the upstream", async () => {
    const harness = await startHarness([
      { content: `I will run it.${QWEN_LEAK}` },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
    ])
    const stream = client(harness).responses.stream(request)
    const types: string[] = []
    stream.on("event", (event) => types.push(event.type))
    const streamed = await stream.finalResponse()
    // The lifecycle's own end, with the error Codex CLI does not retry, and what was shown kept.
    expect(types.at(-1)).toBe("response.failed")
    expect(types).not.toContain("error")
    expect(streamed.status).toBe("failed")
    expect(streamed.error?.code).toBe("invalid_prompt")
    expect(streamed.error?.message).toMatch(/^tool-rescue repeated-markup: /)
    expect(streamed.output_text).toBe("I will run it.")
    expect(harness.turns()).toBe(2)
    const resent = await client(harness)
      .responses.create(request)
      .catch((error: unknown) => error)
    expect((resent as InstanceType<typeof OpenAI.APIError>).status).toBe(422)
    expect((resent as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    expect(harness.turns()).toBe(2)
    const other = await client(harness)
      .responses.create({ ...request, input: "Show me b.ts" })
      .catch((error: unknown) => error)
    expect((other as InstanceType<typeof OpenAI.APIError>).status).toBe(422)
    expect(harness.turns()).toBe(4)
  })
})
