import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type OpenAI from "openai"
import { APIError } from "openai"
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream"
import { Stream } from "openai/streaming"
import { describe, expect, it } from "vitest"
import { chatTool, collect, contentOf, harness, leak, sentText } from "./support/harness.ts"

const sample = leak("L8")
const tools = sample.tools.map(chatTool)
const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Where is BaseService?" },
]
const call = { name: "GrepTool", arguments: '{"pattern":"class BaseService"}', id: "call_retry" }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))

function request(
  extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {},
): OpenAI.ChatCompletionCreateParamsStreaming {
  return { model: "qwen3-coder", messages, tools, stream: true, ...extra }
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

describe("streaming chat completions", () => {
  it("the retry's text starts on a new line after the prose the first attempt showed", async () => {
    const { client, server } = await harness([
      { content: `I will run it.${sample.text.slice(safePrefix.length)}`, chunkSize: 4 },
      { content: "Calling the tool properly.", toolCalls: [call] },
    ])
    const chunks = await collect(await client.chat.completions.create(request()))
    expect(contentOf(chunks)).toBe("I will run it.\nCalling the tool properly.")
    expect(server.requests[1]?.rawBody).toContain("already saw the text before that call")
  })

  it("recovers a real leak split into 1-character chunks: safe text shown, markup never, the retry spliced in", async () => {
    const { client, server, events } = await harness([
      { content: sample.text, chunkSize: 1 },
      { toolCalls: [call], usage: { inputTokens: 50, outputTokens: 9 } },
    ])
    const chunks = await collect(await client.chat.completions.create(request()))

    expect(contentOf(chunks)).toBe(safePrefix)
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
    expect(toolDeltas.map((d) => d.function?.name ?? "").join("")).toBe("GrepTool")
    expect(toolDeltas.map((d) => d.function?.arguments ?? "").join("")).toBe(call.arguments)
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    // One completion to the consumer: one id, one role.
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1)
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.role !== undefined)).toHaveLength(1)

    expect(server.requests).toHaveLength(2)
    const retry = server.requests[1]!.body!
    expect(retry.messages?.[0]?.role).toBe("system")
    expect(String(retry.messages?.[0]?.content).startsWith("You are a coding agent.\n\n")).toBe(true)
    expect(isRetryRequest(retry.messages?.[0]?.content)).toBe(true)
    expect(retry.messages).toHaveLength(2)
    expect(sentText(retry)).not.toContain("<function=")
    // The malformed response is no message of the retry; the prose it showed is quoted in the
    // instruction only, so the model continues after it.
    expect(sentText(retry.messages?.slice(1))).not.toContain(safePrefix.trim())
    expect(String(retry.messages?.[0]?.content)).toContain(JSON.stringify(safePrefix))
    expect(retry.tools).toEqual(server.requests[0]!.body!.tools)
    expect(retry.stream).toBe(true)
    expect(events.map((event) => event.type)).toEqual([
      "markup-detected",
      "recovery-started",
      "recovery-succeeded",
    ])
  })

  it("recovers markup written in reasoning_content when no answer follows (the call hidden in reasoning)", async () => {
    const hermes = '<tool_call>\n{"name": "GrepTool", "arguments": {"pattern": "x"}}\n</tool_call>'
    const { client, server } = await harness([
      { reasoning: `I will search.\n${hermes}`, chunkSize: 4 },
      { toolCalls: [call] },
    ])
    const chunks = await collect(await client.chat.completions.create(request()))
    const reasoning = chunks
      .map(
        (chunk) =>
          (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "",
      )
      .join("")
    expect(reasoning).toBe("I will search.\n")
    expect(server.requests).toHaveLength(2)
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
  })

  it("does not retry a call rehearsed in reasoning when an answer follows, and keeps the markup off the stream", async () => {
    const hermes = '<tool_call>\n{"name": "GrepTool", "arguments": {"pattern": "x"}}\n</tool_call>'
    const { client, server } = await harness([
      {
        reasoning: `Maybe ${hermes} but no.`,
        reasoningField: "reasoning",
        content: "It is in base.py.",
        chunkSize: 5,
      },
    ])
    const chunks = await collect(await client.chat.completions.create(request()))
    const reasoning = chunks
      .map((chunk) => (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? "")
      .join("")
    expect(reasoning).not.toContain("<tool_call>")
    expect(contentOf(chunks)).toBe("It is in base.py.")
    expect(server.requests).toHaveLength(1)
  })

  it("keeps a call rehearsed inside <think> off a 1-character stream, and recovers the real call after it (L39)", async () => {
    const rehearsal = leak("L39")
    const { client, server } = await harness([
      { content: rehearsal.text, chunkSize: 1 },
      { toolCalls: [{ name: "A", arguments: "{}", id: "call_a" }] },
    ])
    const chunks = await collect(
      await client.chat.completions.create({ ...request(), tools: rehearsal.tools.map(chatTool) }),
    )
    expect(contentOf(chunks)).not.toContain("<tool_call>")
    expect(contentOf(chunks)).toContain("it will give me result which i will in my analysis\n</think>")
    expect(server.requests).toHaveLength(2)
  })

  it("passes usage-only chunks through: the consumer gets the turn's usage (both attempts) once", async () => {
    const { client } = await harness([
      { content: sample.text, chunkSize: 7, usage: { inputTokens: 40, outputTokens: 60 } },
      { toolCalls: [call], usage: { inputTokens: 45, outputTokens: 8 } },
    ])
    const chunks = await collect(
      await client.chat.completions.create(request({ stream_options: { include_usage: true } })),
    )
    const usage = chunks.filter((chunk) => chunk.choices.length === 0)
    expect(usage).toHaveLength(1)
    expect(usage[0]?.usage).toMatchObject({ prompt_tokens: 85, completion_tokens: 68, total_tokens: 153 })
    expect(chunks.at(-1)).toEqual(usage[0])
  })

  it("lets a mid-stream provider error through unchanged, without a retry", async () => {
    const { client, server } = await harness([
      {
        content: "Let me look <tool_",
        chunkSize: 3,
        interrupt: { kind: "error", afterChunks: 3, error: { message: "overloaded" } },
      },
      { toolCalls: [call] },
    ])
    const stream = await client.chat.completions.create(request())
    const error = await collect(stream).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain("overloaded")
    expect(server.requests).toHaveLength(1)
  })

  it("throws ToolCallRecoveryError from the iterator when the retry leaks again", async () => {
    const { client, server, events } = await harness([
      { content: sample.text, chunkSize: 11 },
      { content: sample.text, chunkSize: 5 },
    ])
    const chunks: OpenAI.ChatCompletionChunk[] = []
    const error = await (async () => {
      for await (const chunk of await client.chat.completions.create(request())) chunks.push(chunk)
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect((error as { code: string }).code).toBe("repeated-markup")
    expect(contentOf(chunks)).not.toContain("<")
    expect(server.requests).toHaveLength(2)
    expect(events.at(-1)?.type).toBe("recovery-failed")
  })

  it("never retries after a break", async () => {
    const { client, server } = await harness([
      { content: sample.text, chunkSize: 4, chunkDelayMs: 2 },
      { toolCalls: [call] },
    ])
    const stream = await client.chat.completions.create(request())
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break
    }
    await wait(100)
    expect(server.requests).toHaveLength(1)
    expect(stream.controller.signal.aborted).toBe(true)
  })

  it("ends quietly, without a retry, on stream.controller.abort() during the first attempt", async () => {
    const { client, server } = await harness([
      { content: sample.text, chunkSize: 4, chunkDelayMs: 2 },
      { toolCalls: [call] },
    ])
    const stream = await client.chat.completions.create(request())
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of stream) {
      chunks.push(chunk)
      if (chunks.length === 3) stream.controller.abort()
    }
    await wait(100)
    expect(chunks.length).toBeLessThan(10)
    expect(server.requests).toHaveLength(1)
  })

  it("ends quietly, without a retry, when the caller's signal aborts during the first attempt", async () => {
    const { client, server } = await harness([
      { content: sample.text, chunkSize: 4, chunkDelayMs: 2 },
      { toolCalls: [call] },
    ])
    const controller = new AbortController()
    const stream = await client.chat.completions.create(request(), { signal: controller.signal })
    let count = 0
    for await (const _ of stream) if (++count === 3) controller.abort()
    await wait(100)
    expect(server.requests).toHaveLength(1)
    expect(stream.controller.signal.aborted).toBe(true)
  })

  it("ends quietly when the abort lands while the retry request is in flight", async () => {
    const controller = new AbortController()
    const { client, server } = await harness((_request, turn) => {
      if (turn === 0) return { content: sample.text, chunkSize: 20 }
      setTimeout(() => controller.abort(), 20)
      return { toolCalls: [call], latencyMs: 10_000 }
    })
    const started = Date.now()
    const chunks = await collect(
      await client.chat.completions.create(request(), { signal: controller.signal }),
    )
    // Far below the retry's 10 s latency: the abort ended the wait (a wide margin for a loaded CI).
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(contentOf(chunks)).toBe(safePrefix)
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false)
    expect(server.requests).toHaveLength(2)
  })

  it("ends quietly on an abort during the retry's stream", async () => {
    const { client, server } = await harness([
      { content: sample.text, chunkSize: 20 },
      { content: "Searching now.", chunkSize: 1, chunkDelayMs: 5, toolCalls: [call] },
    ])
    const stream = await client.chat.completions.create(request())
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of stream) {
      chunks.push(chunk)
      if (contentOf(chunks).endsWith("Sea")) stream.controller.abort()
    }
    expect(contentOf(chunks)).toBe(`${safePrefix}Sea`)
    await wait(50)
    expect(server.requests).toHaveLength(2)
  })

  const alternate = (_request: unknown, turn: number) =>
    turn % 2 === 0 ? { content: sample.text, chunkSize: 9 } : { toolCalls: [call] }

  it("returns the SDK's own Stream class, with a controller of its own", async () => {
    const { client } = await harness(alternate)
    const stream = await client.chat.completions.create(request())
    expect(stream).toBeInstanceOf(Stream)
    expect(stream.controller).toBeInstanceOf(AbortController)
    await collect(stream)
    // A clean end of the recovered stream is not an abort (the SDK's helpers check this).
    expect(stream.controller.signal.aborted).toBe(false)
    await expect(collect(stream)).rejects.toThrow(/consumed stream/)
  })

  it("tee(): both branches read the recovered stream", async () => {
    const { client } = await harness(alternate)
    const [left, right] = (await client.chat.completions.create(request())).tee()
    const [a, b] = await Promise.all([collect(left), collect(right)])
    expect(a).toEqual(b)
    expect(contentOf(a)).toBe(safePrefix)
    expect(a.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
  })

  it("toReadableStream(): the recovered stream round-trips through Stream and ChatCompletionStream", async () => {
    const { client } = await harness(alternate)
    const direct = await collect(await client.chat.completions.create(request()))
    const readable = (await client.chat.completions.create(request())).toReadableStream()
    const back = await collect(
      Stream.fromReadableStream<OpenAI.ChatCompletionChunk>(readable, new AbortController()),
    )
    expect(back.map(({ created: _c, id: _i, ...rest }) => rest)).toEqual(
      direct.map(({ created: _c, id: _i, ...rest }) => rest),
    )

    const final = await ChatCompletionStream.fromReadableStream(
      (await client.chat.completions.create(request())).toReadableStream(),
    ).finalChatCompletion()
    expect(final.choices[0]?.message.content).toBe(safePrefix)
    expect(
      final.choices[0]?.message.tool_calls?.map((c) => c.type === "function" && c.function.name),
    ).toEqual(["GrepTool"])
  })

  it("withResponse(): data is the recovered stream; response and request_id are the first attempt's", async () => {
    const { client, server } = await harness(alternate)
    const { data, response, request_id } = await client.chat.completions.create(request()).withResponse()
    expect(data).toBeInstanceOf(Stream)
    expect(request_id).toBe(response.headers.get("x-request-id"))
    const chunks = await collect(data)
    expect(contentOf(chunks)).toBe(safePrefix)
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    expect(server.requests).toHaveLength(2)
  })
})
