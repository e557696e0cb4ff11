import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import OpenAI, { APIError } from "openai"
import { ResponseStream } from "openai/lib/responses/ResponseStream"
import { Stream } from "openai/streaming"
import { describe, expect, it } from "vitest"
import { toolCallErrorOutputs, withToolCallRecovery } from "../src/index.ts"
import { collect, harness, instructionText, leak, responsesTool, sentText } from "./support/harness.ts"

const sample = leak("L8")
const tools = sample.tools.map(responsesTool)
const call = { name: "GrepTool", arguments: '{"pattern":"class BaseService"}', id: "call_grep" }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))

type Event = OpenAI.Responses.ResponseStreamEvent

function body(
  extra: Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming> = {},
): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  return {
    model: "qwen3-coder",
    instructions: "You are a coding agent.",
    input: "Where is BaseService?",
    tools,
    ...extra,
  }
}

/** JSON of a value with the replay server's per-request ids and timestamps made equal. */
function normalize(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replaceAll(/_replay_\d+/g, "_replay_n")
      .replaceAll(/"created_at":\d+/g, '"created_at":0'),
  )
}

function textOf(events: readonly Event[]): string {
  return events.map((event) => (event.type === "response.output_text.delta" ? event.delta : "")).join("")
}

describe("Responses API, not streamed", () => {
  it("recovers a real leak: only the retry's call (the malformed response is absent), instructions carry the instruction", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const response = await client.responses.create(body())
    expect(response.output.map((item) => item.type)).toEqual(["function_call"])
    expect(response.output_text).toBe("")
    expect(response.output[0]).toMatchObject({
      type: "function_call",
      name: "GrepTool",
      call_id: "call_grep",
    })
    expect(response._request_id).toBe("req_replay_1")

    const retry = server.requests[1]!.body!
    expect(retry.instructions?.startsWith("You are a coding agent.\n\n")).toBe(true)
    expect(isRetryRequest(retry.instructions)).toBe(true)
    expect(retry.input).toBe("Where is BaseService?")
    expect(sentText(retry)).not.toContain("<function=")
  })

  it("returns a clean response exactly as the SDK parsed it", async () => {
    const { client, raw } = await harness(() => ({
      content: "It is in base.py.",
      reasoning: "Let me think.",
    }))
    const plain = await raw.responses.create(body())
    const wrapped = await client.responses.create(body())
    expect(normalize(wrapped)).toEqual(normalize(plain))
    expect(wrapped.output_text).toBe("It is in base.py.")
  })

  it('appends a user input item with instructionPlacement: "user"', async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }], {
      instructionPlacement: "user",
    })
    await client.responses.create(body())
    const retry = server.requests[1]!.body!
    expect(retry.instructions).toBe("You are a coding agent.")
    expect(retry.input).toEqual([
      { type: "message", role: "user", content: "Where is BaseService?" },
      { type: "message", role: "user", content: instructionText() },
    ])
  })

  it("rejects with ToolCallRecoveryError when the retry leaks again", async () => {
    const { client } = await harness([{ content: sample.text }, { content: sample.text }])
    const error = await client.responses.create(body()).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error)).toBe(true)
  })

  it.each([
    ["background: true", { background: true }, "background"],
    ['tool_choice: "none"', { tool_choice: "none" as const }, "tool-choice-none"],
    ["no function tools", { tools: [{ type: "web_search" as const }] }, "no-tools"],
  ])("skips recovery for %s, with an event", async (_name, extra, reason) => {
    const { client, server, events } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const response = await client.responses.create(body(extra))
    expect(response.output_text).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
    expect(events).toEqual([{ type: "recovery-skipped", reason }])
  })

  it("withholds the markup of a conversation's response and rejects, naming why, without a retry", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const error = await client.responses.create(body({ conversation: "conv_1" })).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect((error as Error).message).toMatch(/could not be retried: the request's `conversation`/)
    expect(server.requests).toHaveLength(1)
  })

  it('returns tool_call_errors with unknownToolCalls: "return", and the outputs that answer them', async () => {
    const { server } = await harness(() => ({
      toolCalls: [{ name: "rm_rf", arguments: "{}", id: "call_rm" }, call],
    }))
    const client = withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "test" }), {
      unknownToolCalls: "return",
    })
    const response = await client.responses.create(body())
    expect(response.tool_call_errors).toEqual([
      { name: "rm_rf", params: "{}", error: expect.stringContaining("rm_rf") },
    ])
    expect(toolCallErrorOutputs(response)).toEqual([
      { type: "function_call_output", call_id: "call_rm", output: response.tool_call_errors[0]!.error },
    ])
  })
})

describe("Responses API, streamed", () => {
  it("splices the retry into one response the SDK accepts: one id, unique indexes, growing sequence numbers", async () => {
    const { client, server } = await harness([
      { content: sample.text, reasoning: "I should grep.", chunkSize: 2 },
      { reasoning: "Use the tool.", toolCalls: [call] },
    ])
    const stream = await client.responses.create({ ...body(), stream: true })
    expect(stream).toBeInstanceOf(Stream)
    const events = await collect(stream)

    expect(textOf(events)).toBe(safePrefix)
    const sequence = events.map((event) => event.sequence_number)
    expect(sequence).toEqual([...sequence].sort((a, b) => a - b))
    expect(new Set(sequence).size).toBe(sequence.length)
    const lifecycle = events.filter((event) => "response" in event) as Array<
      Event & { response: OpenAI.Responses.Response }
    >
    expect(lifecycle.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.completed",
    ])
    expect(new Set(lifecycle.map((event) => event.response.id))).toEqual(new Set(["resp_replay_0"]))
    const added = events.filter((event) => event.type === "response.output_item.added")
    expect(added.map((event) => event.output_index)).toEqual([0, 1, 2, 3])
    expect(new Set(added.map((event) => event.item.id)).size).toBe(4)

    const final = lifecycle.at(-1)!.response
    expect(final.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "reasoning",
      "function_call",
    ])
    expect(JSON.stringify(final.output)).not.toContain("<tool_call>")
    expect(server.requests).toHaveLength(2)
    expect(isRetryRequest(server.requests[1]!.body!.instructions)).toBe(true)
  })

  it("store: true: the recovered stream ends with the retry's response id, and the retry chains like the first attempt", async () => {
    const { client, server } = await harness([{ content: sample.text, chunkSize: 5 }, { toolCalls: [call] }])
    const extra = { store: true, previous_response_id: "resp_before" }
    const events = await collect(await client.responses.create({ ...body(extra), stream: true }))
    const completed = events.find((event) => event.type === "response.completed")
    // The first attempt's stored response holds the malformed output: a continuation chains from the retry's.
    expect(completed?.type === "response.completed" && completed.response.id).toBe("resp_replay_1")
    expect(server.requests[1]!.body!.previous_response_id).toBe("resp_before")
  })

  it("drops a message item whose whole text was markup", async () => {
    const { client } = await harness([
      { content: leak("L3").text, chunkSize: 4 },
      { toolCalls: [{ ...call, name: "exec_command" }] },
    ])
    const runner = client.responses.stream({
      model: "m",
      input: "Run it.",
      tools: leak("L3").tools.map(responsesTool),
    })
    const events: Event[] = []
    runner.on("event", (event) => events.push(event))
    const final = await runner.finalResponse()
    expect(final.output.map((item) => item.type)).toEqual(["function_call"])
    expect(events.some((event) => event.type === "response.content_part.added")).toBe(false)
  })

  it("passes a clean stream through event for event", async () => {
    const step = { content: "It is in base.py.", reasoning: "Think.", toolCalls: [call], chunkSize: 3 }
    const { client, raw } = await harness(() => step)
    const plain = await collect(await raw.responses.create({ ...body(), stream: true }))
    const wrapped = await collect(await client.responses.create({ ...body(), stream: true }))
    expect(normalize(wrapped)).toEqual(normalize(plain))
  })

  it("lets a mid-stream error event through unchanged, without a retry", async () => {
    const { client, server } = await harness([
      {
        content: sample.text,
        chunkSize: 6,
        interrupt: { kind: "error", afterChunks: 4, error: { message: "overloaded" } },
      },
      { toolCalls: [call] },
    ])
    const stream = await client.responses.create({ ...body(), stream: true })
    await expect(collect(stream)).rejects.toBeInstanceOf(APIError)
    expect(server.requests).toHaveLength(1)
  })

  it("ends quietly on stream.controller.abort(), without a retry", async () => {
    const { client, server } = await harness([
      { content: sample.text, chunkSize: 4, chunkDelayMs: 2 },
      { toolCalls: [call] },
    ])
    const stream = await client.responses.create({ ...body(), stream: true })
    const events: Event[] = []
    for await (const event of stream) {
      events.push(event)
      if (event.type === "response.output_text.delta") stream.controller.abort()
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(textOf(events).length).toBeGreaterThan(0)
    expect(server.requests).toHaveLength(1)
  })

  it("throws ToolCallRecoveryError from the iterator when the retry leaks again", async () => {
    const { client } = await harness([{ content: sample.text, chunkSize: 6 }, { content: sample.text }])
    const events: Event[] = []
    const error = await (async () => {
      for await (const event of await client.responses.create({ ...body(), stream: true })) events.push(event)
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error)).toBe(true)
    // Both attempts' safe text was shown as it arrived; neither's markup.
    expect(textOf(events)).toBe(safePrefix + safePrefix)
  })

  it("withResponse() and toReadableStream() → ResponseStream.fromReadableStream", async () => {
    const { client } = await harness((_r, turn) =>
      turn === 0 ? { content: sample.text, chunkSize: 5 } : { toolCalls: [call] },
    )
    const { data, request_id } = await client.responses.create({ ...body(), stream: true }).withResponse()
    expect(request_id).toBe("req_replay_0")
    const final = await ResponseStream.fromReadableStream(data.toReadableStream()).finalResponse()
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call"])
    expect(final.output_text).toBe(safePrefix)
  })
})
