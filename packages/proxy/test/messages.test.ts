import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "vitest"
import { type Harness, harnessPerTest, QWEN_LEAK } from "./support/harness.ts"

const startHarness = harnessPerTest()

const request = {
  model: "qwen3-coder",
  max_tokens: 1024,
  system: "You are a coding agent.",
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [
    { name: "Read", description: "Read a file", input_schema: { type: "object" as const, properties: {} } },
  ],
}
const LEAK = QWEN_LEAK.replace("read_file", "Read")

/** Claude Code's configuration: `ANTHROPIC_BASE_URL` is the proxy's origin (the SDK adds `/v1`). */
function client(h: Harness): Anthropic {
  return new Anthropic({ baseURL: h.proxy.url.replace(/\/v1$/, ""), apiKey: "sk-ant-secret", maxRetries: 0 })
}

describe("Anthropic Messages through the proxy (the real @anthropic-ai/sdk)", () => {
  it("streaming: the leak is withheld, the retry carries the instruction in system, and the tool_use block arrives", async () => {
    const harness = await startHarness([
      { content: `Let me read it.\n${LEAK}`, chunkSize: 4 },
      { content: "Reading.", toolCalls: [{ name: "Read", arguments: '{"file_path":"a.ts"}' }], chunkSize: 5 },
    ])
    const stream = client(harness).messages.stream(request)
    let text = ""
    stream.on("text", (delta) => {
      text += delta
    })
    const message = await stream.finalMessage()
    expect(text).toBe("Let me read it.\nReading.")
    expect(message.content.map((block) => block.type)).toEqual(["text", "text", "tool_use"])
    const call = message.content.find((block) => block.type === "tool_use")
    expect(call?.type === "tool_use" && call.name).toBe("Read")
    expect(call?.type === "tool_use" && call.input).toEqual({ file_path: "a.ts" })
    expect(message.stop_reason).toBe("tool_use")
    const retry = harness.upstream.requests[1]!
    expect(retry.body?.system).toMatch(/^You are a coding agent\.\n\n\S/)
    expect(retry.body?.messages).toEqual(request.messages)
    // This SDK sends its key as a bearer token; raw `x-api-key` is covered in headers.test.ts.
    expect(retry.headers.authorization).toBe("Bearer sk-ant-secret")
    expect(retry.headers["anthropic-version"]).toBe(
      harness.upstream.requests[0]!.headers["anthropic-version"],
    )
    expect(harness.failed).toHaveLength(1)
  })

  it("non-streaming: the message holds the call and no markup", async () => {
    const harness = await startHarness([
      { content: LEAK },
      { toolCalls: [{ name: "Read", arguments: '{"file_path":"a.ts"}' }] },
    ])
    const message = await client(harness).messages.create(request)
    expect(message.content.map((block) => block.type)).toEqual(["tool_use"])
    expect(harness.turns()).toBe(2)
  })

  it("a second leak is Anthropic's error event; the same turn resent without streaming gets the error body again, not the upstream", async () => {
    const harness = await startHarness([
      { content: LEAK, chunkSize: 9 },
      { content: LEAK },
      { content: LEAK },
      { content: LEAK },
    ])
    const streamed = await client(harness)
      .messages.stream(request)
      .finalMessage()
      .catch((error: unknown) => error)
    expect(streamed).toBeInstanceOf(Anthropic.APIError)
    expect(JSON.stringify((streamed as InstanceType<typeof Anthropic.APIError>).error)).toContain(
      "repeated-markup",
    )
    const plain = await client(harness)
      .messages.create(request)
      .catch((error: unknown) => error)
    expect(plain).toBeInstanceOf(Anthropic.APIError)
    const apiError = plain as InstanceType<typeof Anthropic.APIError>
    expect(apiError.status).toBe(422)
    expect(apiError.error).toMatchObject({ type: "error", error: { code: "repeated-markup" } })
    // The resend (Claude Code's fallback when its router drops the error event) cost nothing upstream.
    expect(harness.turns()).toBe(2)
  })

  it("a malformed body is Anthropic's 400, and the upstream hears nothing", async () => {
    const harness = await startHarness([])
    const response = await fetch(`${harness.proxy.url}/messages`, { method: "POST", body: "{not json" })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } })
    expect(harness.upstream.requests).toHaveLength(0)
  })
})
