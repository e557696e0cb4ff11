import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import OpenAI, { InternalServerError } from "openai"
import { describe, expect, it } from "vitest"
import { toolCallErrorMessages, withToolCallRecovery } from "../src/index.ts"
import { chatTool, harness, instructionText, leak, sentText } from "./support/harness.ts"

const sample = leak("L1")
const tools = sample.tools.map(chatTool)
const call = { name: "Glob", arguments: '{"pattern":"*.md"}', id: "call_glob" }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<function="))
const user: OpenAI.ChatCompletionMessageParam = { role: "user", content: "List the markdown files." }

function request(
  extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {},
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  return { model: "qwen3-coder", messages: [user], tools, ...extra }
}

describe("non-streaming chat completions", () => {
  it("returns a clean completion as the SDK parsed it, in one request", async () => {
    const { client, raw, server } = await harness(() => ({
      content: "There are two files.",
      usage: { inputTokens: 5, outputTokens: 5 },
    }))
    const plain = await raw.chat.completions.create(request())
    const wrapped = await client.chat.completions.create(request())
    expect({ ...wrapped, id: plain.id, created: plain.created }).toEqual(plain)
    expect(wrapped._request_id).toBe(`req_replay_1`)
    expect(server.requests).toHaveLength(2)
  })

  it("recovers a real leak: the retry's tool call, the safe text, one retry without the malformed response", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const completion = await client.chat.completions.create(request())
    const message = completion.choices[0]!.message
    // Nothing was shown: the malformed response, prose included, is absent from the result.
    expect(message.content).toBeNull()
    expect(message.tool_calls).toEqual([
      { id: "call_glob", type: "function", function: { name: "Glob", arguments: call.arguments } },
    ])
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls")
    expect(completion._request_id).toBe("req_replay_1")
    expect(server.requests).toHaveLength(2)

    const retry = server.requests[1]!.body!
    // No system message in the request: one is inserted at index 0, never appended.
    expect(retry.messages?.[0]).toEqual({
      role: "system",
      content: instructionText(),
    })
    expect(retry.messages?.slice(1)).toEqual([user])
    expect(sentText(retry)).not.toContain("<function=")
    expect(sentText(retry)).not.toContain(safePrefix.trim())
  })

  it("merges the instruction into a leading developer message with array content", async () => {
    const developer: OpenAI.ChatCompletionMessageParam = {
      role: "developer",
      content: [{ type: "text", text: "Be terse." }],
    }
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    await client.chat.completions.create(request({ messages: [developer, user] }))
    const sent = server.requests[1]!.body!.messages!
    expect(sent).toHaveLength(2)
    expect(sent[0]).toEqual({
      role: "developer",
      content: [
        { type: "text", text: "Be terse." },
        { type: "text", text: instructionText() },
      ],
    })
  })

  it('places the instruction in a final user message with instructionPlacement: "user"', async () => {
    const system: OpenAI.ChatCompletionMessageParam = { role: "system", content: "Be terse." }
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }], {
      instructionPlacement: "user",
    })
    await client.chat.completions.create(request({ messages: [system, user] }))
    const sent = server.requests[1]!.body!.messages!
    expect(sent.slice(0, 2)).toEqual([system, user])
    expect(sent[2]).toEqual({ role: "user", content: instructionText() })
  })

  it("uses a custom instruction", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }], {
      instruction: ({ round, tools }) => `Round ${round}: call ${tools.join("/")} properly.`,
    })
    await client.chat.completions.create(request())
    expect(server.requests[1]!.body!.messages![0]).toEqual({
      role: "system",
      content: "Round 1: call Glob/Read/Bash properly.",
    })
  })

  it("does not reuse the caller's idempotency key on the retry, and keeps its other options", async () => {
    class IdempotentClient extends OpenAI {
      protected override idempotencyHeader = "Idempotency-Key"
    }
    const { server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const client = withToolCallRecovery(
      new IdempotentClient({ baseURL: server.url, apiKey: "test", maxRetries: 0 }),
    )
    await client.chat.completions.create(request(), {
      idempotencyKey: "key-1",
      headers: { "X-Trace": "t-1" },
    })
    const [first, retry] = server.requests
    expect(first!.headers["idempotency-key"]).toBe("key-1")
    expect(retry!.headers["idempotency-key"]).toBeDefined()
    expect(retry!.headers["idempotency-key"]).not.toBe("key-1")
    expect(retry!.headers["x-trace"]).toBe("t-1")
  })

  it("drops an explicit Idempotency-Key header on the retry", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    await client.chat.completions.create(request(), { headers: { "Idempotency-Key": "key-2" } })
    expect(server.requests[0]!.headers["idempotency-key"]).toBe("key-2")
    expect(server.requests[1]!.headers["idempotency-key"]).toBeUndefined()
  })

  it("rejects with ToolCallRecoveryError when the retry leaks again", async () => {
    const { client, server } = await harness([{ content: sample.text }, { content: sample.text }])
    const error = await client.chat.completions.create(request()).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(error).toMatchObject({ code: "repeated-markup", rounds: 2 })
    expect(server.requests).toHaveLength(2)
  })

  it("rejects, with no further request, when the caller aborts while the retry is in flight", async () => {
    const controller = new AbortController()
    const { client, server } = await harness((_request, turn) => {
      if (turn === 0) return { content: sample.text }
      setTimeout(() => controller.abort(), 20)
      return { toolCalls: [call], latencyMs: 10_000 }
    })
    const started = Date.now()
    const error = await client.chat.completions.create(request(), { signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    )
    // Far below the retry's 10 s latency: the abort ended the wait (a wide margin for a loaded CI).
    expect(Date.now() - started).toBeLessThan(5_000)
    // Aborted during recovery: recovery's typed error, with the abort as its cause.
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(error).toMatchObject({ code: "aborted" })
    expect(server.requests).toHaveLength(2)
  })

  it("lets a provider error on the retry through unchanged", async () => {
    const { client } = await harness([
      { content: sample.text },
      { httpError: { status: 500, message: "boom" } },
    ])
    await expect(client.chat.completions.create(request())).rejects.toBeInstanceOf(InternalServerError)
  })

  it("withResponse(): recovered data; the first attempt's response and request id", async () => {
    const { client } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const { data, response, request_id } = await client.chat.completions.create(request()).withResponse()
    expect(data.choices[0]!.message.tool_calls).toHaveLength(1)
    expect(request_id).toBe("req_replay_0")
    expect(response.headers.get("x-request-id")).toBe("req_replay_0")
    // The data object is the retry's completion: its own request id.
    expect((data as { _request_id?: string })._request_id).toBe("req_replay_1")
  })

  it("asResponse() is the raw first response, before recovery", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const response = await client.chat.completions.create(request()).asResponse()
    const body = (await response.json()) as OpenAI.ChatCompletion
    expect(body.choices[0]!.message.content).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    ["n > 1", { n: 2 }, "multiple-choices"],
    ['tool_choice: "none"', { tool_choice: "none" as const }, "tool-choice-none"],
    ["no tools", { tools: [] }, "no-tools"],
  ])("skips recovery for %s, with an event", async (_name, extra, reason) => {
    const { client, server, events } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const completion = await client.chat.completions.create(request(extra))
    expect(completion.choices[0]!.message.content).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
    expect(events).toEqual([{ type: "recovery-skipped", reason }] satisfies RecoveryEvent[])
  })
})

describe("unknown tool names in structured calls", () => {
  const unknown = { name: "rm_rf", arguments: '{"path": "/"}', id: "call_rm" }

  it("leaves the completion as the server sent it by default", async () => {
    const { client, raw, events } = await harness(() => ({ toolCalls: [call, unknown] }))
    const completion = await client.chat.completions.create(request())
    const plain = await raw.chat.completions.create(request())
    expect("tool_call_errors" in completion).toBe(false)
    expect({ ...completion, id: plain.id, created: plain.created }).toEqual(plain)
    expect(events).toContainEqual({ type: "unknown-tool-call", toolName: "rm_rf", params: unknown.arguments })
  })

  it('returns typed tool_call_errors with "return", and the tool messages that answer them', async () => {
    const { server } = await harness(() => ({ toolCalls: [call, unknown] }))
    const client = withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "test" }), {
      unknownToolCalls: "return",
    })
    const completion = await client.chat.completions.create(request())
    expect(completion.tool_call_errors).toEqual([
      { name: "rm_rf", params: unknown.arguments, error: expect.stringContaining('Unknown tool "rm_rf"') },
    ])
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(2)
    expect(toolCallErrorMessages(completion)).toEqual([
      { role: "tool", tool_call_id: "call_rm", content: completion.tool_call_errors[0]!.error },
    ])
  })

  it('puts tool_call_errors on the finish chunk of a stream with "return"', async () => {
    const { server } = await harness(() => ({ toolCalls: [unknown, call], chunkSize: 3 }))
    const client = withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "test" }), {
      unknownToolCalls: "return",
    })
    const stream = await client.chat.completions.create({ ...request(), stream: true })
    const finish = []
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) finish.push(chunk)
    expect(finish).toHaveLength(1)
    expect(finish[0]!.tool_call_errors).toEqual([
      {
        name: "rm_rf",
        params: unknown.arguments,
        error: expect.stringContaining("Available tools: Glob, Read, Bash"),
      },
    ])
  })
})

describe("the wrapped client", () => {
  it("is still an OpenAI client and leaves the original untouched", async () => {
    const { client, raw, server } = await harness(() => ({ content: sample.text }))
    expect(client).toBeInstanceOf(OpenAI)
    expect(client).not.toBe(raw)
    expect(client.baseURL).toBe(server.url)
    // Methods that read #private members still work through the wrapper.
    expect(client.buildURL("/models", null)).toBe(`${server.url}/models`)
    expect(client.chat.completions).not.toBe(raw.chat.completions)
    expect(client.chat.completions).toBe(client.chat.completions)
    // The original client does no recovery: the leak comes back as text, in one request.
    const plain = await raw.chat.completions.create(request())
    expect(plain.choices[0]!.message.content).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
    expect(Object.hasOwn(raw.chat.completions, "create")).toBe(false)
  })

  it("withOptions() returns a wrapped client with the new options", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const derived = client.withOptions({ defaultHeaders: { "X-Derived": "yes" } })
    expect(derived).toBeInstanceOf(OpenAI)
    const completion = await derived.chat.completions.create(request())
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1)
    expect(server.requests.map((r) => r.headers["x-derived"])).toEqual(["yes", "yes"])
  })

  it("a turn that failed on a client fails again on the clients withOptions() derives, with no request", async () => {
    const { client, server } = await harness([{ content: sample.text }, { content: sample.text }])
    const first = await client.chat.completions.create(request()).catch((error: unknown) => error)
    expect(first).toMatchObject({ code: "repeated-markup" })
    expect(server.requests).toHaveLength(2)
    const derived = client.withOptions({ timeout: 5_000 })
    const again = await derived.chat.completions.create(request()).catch((error: unknown) => error)
    expect(again).toMatchObject({ code: "repeated-markup" })
    expect(server.requests).toHaveLength(2)
  })

  it("wrapping a wrapped client replaces the options instead of stacking recovery", async () => {
    const events: string[] = []
    const { client, server } = await harness([
      { content: sample.text },
      { content: sample.text },
      { toolCalls: [call] },
    ])
    const rewrapped = withToolCallRecovery(client, { maxRecoveries: 2, onEvent: (e) => events.push(e.type) })
    const completion = await rewrapped.chat.completions.create(request())
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1)
    expect(server.requests).toHaveLength(3)
    expect(events.filter((type) => type === "recovery-started")).toHaveLength(2)
  })

  it("rejects invalid options at once", () => {
    const raw = new OpenAI({ apiKey: "x", baseURL: "http://127.0.0.1:9/v1" })
    expect(() => withToolCallRecovery(raw, { maxRecoveries: -1 })).toThrow(RangeError)
    expect(() => withToolCallRecovery(raw, { unknownToolCalls: "ignore" as never })).toThrow(TypeError)
    expect(() => withToolCallRecovery({} as never)).toThrow(TypeError)
  })
})
