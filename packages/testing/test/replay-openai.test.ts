import OpenAI, { APIError } from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { type ReplayScript, type ReplayServer, startReplayServer } from "../src/index.ts"

const messages = [{ role: "user" as const, content: "hi" }]
const servers: ReplayServer[] = []

async function serve(script: ReplayScript): Promise<{ server: ReplayServer; client: OpenAI }> {
  const server = await startReplayServer({ script })
  servers.push(server)
  return { server, client: new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 }) }
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** Resolves once `condition` holds (the server sees a client's close a moment after the client acts). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2))
}

const leak =
  "Let me read it.\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>"

describe("chat completions through the real openai client", () => {
  it("returns content, reasoning, tool calls, finish reason and usage (JSON)", async () => {
    const { server, client } = await serve([
      {
        content: "Checking.",
        reasoning: "I should read the file.",
        toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}', id: "call_x" }],
        usage: { inputTokens: 7, outputTokens: 11 },
      },
    ])
    const completion = await client.chat.completions.create({ model: "qwen", messages })
    const message = completion.choices[0]!.message
    expect(message.content).toBe("Checking.")
    expect((message as unknown as Record<string, unknown>).reasoning_content).toBe("I should read the file.")
    expect(message.tool_calls).toEqual([
      { id: "call_x", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
    ])
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls")
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 11, total_tokens: 18 })
    expect(completion.model).toBe("qwen")
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.path).toBe("/v1/chat/completions")
    expect(server.requests[0]!.body?.messages).toEqual(messages)
  })

  it("streams 1-character deltas that reassemble, with tool-call deltas and a usage-only last chunk", async () => {
    const { client } = await serve([
      {
        content: leak,
        reasoning: "hmm",
        reasoningField: "reasoning",
        toolCalls: [{ name: "bash", arguments: '{"cmd":"ls -la"}' }],
        chunkSize: 1,
      },
    ])
    const stream = await client.chat.completions.create({
      model: "m",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })
    let content = ""
    let reasoning = ""
    let args = ""
    let name = ""
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of stream) {
      chunks.push(chunk)
      const delta = chunk.choices[0]?.delta
      content += delta?.content ?? ""
      reasoning += ((delta as Record<string, unknown> | undefined)?.reasoning as string | undefined) ?? ""
      for (const call of delta?.tool_calls ?? []) {
        name += call.function?.name ?? ""
        args += call.function?.arguments ?? ""
      }
    }
    expect(content).toBe(leak)
    expect(reasoning).toBe("hmm")
    expect(name).toBe("bash")
    expect(args).toBe('{"cmd":"ls -la"}')
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage?.total_tokens).toBeGreaterThan(0)
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("tool_calls")
    // one role chunk, 3 reasoning, leak.length content, 1 call header + 16 argument deltas, finish, usage
    expect(chunks).toHaveLength(1 + 3 + leak.length + 1 + 16 + 1 + 1)
  })

  it("sends no usage chunk without stream_options.include_usage", async () => {
    const { client } = await serve([{ content: "ok" }])
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true)
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop")
  })

  it("splits inside surrogate pairs and markers, and the client reassembles the text", async () => {
    const text = "a😀<tool_call>b😀"
    const { client } = await serve([{ content: text, chunkSize: [1, 2] }])
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const deltas: string[] = []
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content
      if (content) deltas.push(content)
    }
    expect(deltas.join("")).toBe(text)
    expect(deltas[1]).toBe("\ud83d\ude00".slice(0, 2)) // "a" then the whole pair (size 2)
    expect(deltas.some((delta) => delta.length === 1 && /[\ud800-\udbff]/.test(delta))).toBe(true)
  })

  it("supports withResponse() with the server's request id, and the chat stream() helper", async () => {
    const { client } = await serve([{ content: "one" }, { content: "two", chunkSize: 1 }])
    const { data, response, request_id } = await client.chat.completions
      .create({ model: "m", messages })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe("one")
    expect(response.status).toBe(200)
    expect(request_id).toBe("req_replay_0")
    const final = await client.chat.completions.stream({ model: "m", messages }).finalChatCompletion()
    expect(final.choices[0]!.message.content).toBe("two")
  })

  it("streams with withResponse()", async () => {
    const { client } = await serve([{ content: "streamed", chunkSize: 3 }])
    const { data, request_id } = await client.chat.completions
      .create({ model: "m", messages, stream: true })
      .withResponse()
    let text = ""
    for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? ""
    expect(text).toBe("streamed")
    expect(request_id).toBe("req_replay_0")
  })

  it("surfaces a scripted HTTP error as an APIError with status, message, code and headers", async () => {
    const { client } = await serve([
      {
        httpError: {
          status: 429,
          message: "Slow down",
          code: "rate_limited",
          headers: { "retry-after": "0" },
        },
      },
    ])
    const error = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).status).toBe(429)
    expect((error as APIError).message).toContain("Slow down")
    expect((error as APIError).code).toBe("rate_limited")
    expect((error as APIError).type).toBe("rate_limit_error")
    expect((error as APIError).headers?.get("retry-after")).toBe("0")
  })

  it("the client's own retries take the next steps", async () => {
    const server = await startReplayServer({
      script: [{ httpError: { status: 503 }, latencyMs: 0 }, { content: "after retry" }],
    })
    servers.push(server)
    const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 1 })
    const completion = await client.chat.completions.create({ model: "m", messages })
    expect(completion.choices[0]!.message.content).toBe("after retry")
    expect(server.requests).toHaveLength(2)
  })

  it("raises a mid-stream error after exactly the scripted chunks", async () => {
    const { client } = await serve([
      {
        content: "abcdef",
        chunkSize: 1,
        interrupt: { kind: "error", afterChunks: 3, error: { message: "boom" } },
      },
    ])
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    let text = ""
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain("boom")
    expect(text).toBe("abc")
  })

  it("drops the connection mid-stream after exactly the scripted chunks", async () => {
    const { client } = await serve([
      { content: "abcdef", chunkSize: 2, interrupt: { kind: "drop", afterChunks: 2 } },
    ])
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    let text = ""
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(text).toBe("abcd")
  })

  it("ends a stream cleanly after the scripted chunks, with no finish_reason and no [DONE]", async () => {
    const { client } = await serve([
      { content: "abcdef", chunkSize: 2, interrupt: { kind: "end", afterChunks: 2 } },
    ])
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const reasons: unknown[] = []
    let text = ""
    // The client ends quietly: nothing tells the consumer that the response was cut short.
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      reasons.push(chunk.choices[0]?.finish_reason)
    }
    expect(text).toBe("abcd")
    expect(reasons.every((reason) => reason == null)).toBe(true)
    // Non-streaming: the JSON body is cut short, so the client cannot parse it.
    const { client: json } = await serve([{ content: "abcdef", interrupt: { kind: "end", afterChunks: 0 } }])
    await expect(json.chat.completions.create({ model: "m", messages })).rejects.toBeInstanceOf(Error)
  })

  it("drops a non-streaming request without a response, and errors a non-streaming interrupt with 500", async () => {
    const { client } = await serve([
      { content: "x", interrupt: { kind: "drop", afterChunks: 0 } },
      { content: "x", interrupt: { kind: "error", afterChunks: 0, error: { message: "nope" } } },
    ])
    const dropped = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e)
    expect(dropped).toBeInstanceOf(OpenAI.APIConnectionError)
    const failed = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e)
    expect((failed as APIError).status).toBe(500)
    expect((failed as APIError).message).toContain("nope")
  })

  it("stalls mid-stream after exactly the scripted chunks, and records the client that gives up", async () => {
    const { server, client } = await serve([
      { content: "abcdef", chunkSize: 2, interrupt: { kind: "stall", afterChunks: 2 } },
      { content: "abcdef", chunkSize: 2, interrupt: { kind: "drop", afterChunks: 1 } },
    ])
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: "m", messages, stream: true },
      { signal: controller.signal },
    )
    let text = ""
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      // The stall is silent: nothing arrives after the second delta, so the client gives up.
      if (text === "abcd") controller.abort()
    }
    expect(text).toBe("abcd")
    await waitFor(() => server.requests[0]!.closedByClient)
    const dropped = await client.chat.completions.create({ model: "m", messages, stream: true })
    await (async () => {
      for await (const _ of dropped) {
        // drain
      }
    })().catch(() => undefined)
    // A scripted drop is the server's cut, not the client's.
    expect(server.requests[1]!.closedByClient).toBe(false)
  })

  it("stalls a non-streaming response after its headers and half its body", async () => {
    const { server } = await serve([{ content: "abcdef", interrupt: { kind: "stall", afterChunks: 0 } }])
    const controller = new AbortController()
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages }),
      signal: controller.signal,
    })
    expect(response.status).toBe(200)
    const declared = Number(response.headers.get("content-length"))
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBe(Math.floor(declared / 2))
    controller.abort()
    await waitFor(() => server.requests[0]!.closedByClient)
  })

  it("waits latencyMs before headers and chunkDelayMs before each delta", async () => {
    const { client } = await serve([{ content: "abcd", chunkSize: 1, latencyMs: 60, chunkDelayMs: 30 }])
    const started = performance.now()
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const headersAfter = performance.now() - started
    for await (const _ of stream) {
      // drain
    }
    const total = performance.now() - started
    expect(headersAfter).toBeGreaterThanOrEqual(55)
    expect(total).toBeGreaterThanOrEqual(55 + 4 * 28)
  })

  it("answers from a script function that sees each request", async () => {
    const { server, client } = await serve((request, turn) => ({
      content: `turn ${turn}: ${String(request.body?.messages?.at(-1)?.content)}`,
    }))
    const first = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "a" }],
    })
    const second = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "b" }],
    })
    expect(first.choices[0]!.message.content).toBe("turn 0: a")
    expect(second.choices[0]!.message.content).toBe("turn 1: b")
    expect(server.requests.map((request) => request.body?.messages?.[0]?.content)).toEqual(["a", "b"])
  })

  it("lists models", async () => {
    const server = await startReplayServer({ script: [], models: ["qwen3-coder", "glm-4.6"] })
    servers.push(server)
    const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
    const ids: string[] = []
    for await (const model of client.models.list()) ids.push(model.id)
    expect(ids).toEqual(["qwen3-coder", "glm-4.6"])
    expect((await client.models.retrieve("glm-4.6")).id).toBe("glm-4.6")
    const missing = await client.models.retrieve("nope").catch((e: unknown) => e)
    expect((missing as APIError).status).toBe(404)
  })
})

describe("responses through the real openai client", () => {
  it("returns output text, reasoning and function calls (JSON)", async () => {
    const { server, client } = await serve([
      {
        content: "Sure.",
        reasoning: "think",
        toolCalls: [{ name: "bash", arguments: '{"cmd":"ls"}', id: "call_1" }],
      },
    ])
    const response = await client.responses.create({ model: "m", input: "hi", instructions: "be brief" })
    expect(response.output_text).toBe("Sure.")
    expect(response.status).toBe("completed")
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"])
    expect(response.output[2]).toMatchObject({
      type: "function_call",
      name: "bash",
      arguments: '{"cmd":"ls"}',
      call_id: "call_1",
    })
    expect(response.output[0]).toMatchObject({ content: [{ type: "reasoning_text", text: "think" }] })
    expect(response.instructions).toBe("be brief")
    expect(server.requests[0]!.path).toBe("/v1/responses")
    expect(server.requests[0]!.body?.input).toBe("hi")
  })

  it("streams the full event sequence with increasing sequence numbers", async () => {
    const { client } = await serve([
      {
        content: leak,
        reasoning: "plan",
        toolCalls: [{ name: "bash", arguments: '{"cmd":"ls"}' }],
        chunkSize: 2,
      },
    ])
    const stream = await client.responses.create({ model: "m", input: "hi", stream: true })
    const events: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i))
    const types = [...new Set(events.map((event) => event.type))]
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.reasoning_text.delta",
      "response.reasoning_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_text.delta",
      "response.output_text.done",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.completed",
    ])
    const text = events
      .flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []))
      .join("")
    expect(text).toBe(leak)
    const args = events
      .flatMap((event) => (event.type === "response.function_call_arguments.delta" ? [event.delta] : []))
      .join("")
    expect(args).toBe('{"cmd":"ls"}')
  })

  it("responses.stream().finalResponse() accepts the stream", async () => {
    const { client } = await serve([
      {
        content: "done ✓ 😀",
        reasoning: "r",
        toolCalls: [
          { name: "a", arguments: "{}" },
          { name: "b", arguments: '{"x":1}' },
        ],
        chunkSize: 1,
      },
    ])
    const deltas: string[] = []
    const stream = client.responses.stream({ model: "m", input: "hi" })
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta))
    const final = await stream.finalResponse()
    expect(final.output_text).toBe("done ✓ 😀")
    expect(deltas.join("")).toBe("done ✓ 😀")
    expect(final.output.filter((item) => item.type === "function_call").map((item) => item.name)).toEqual([
      "a",
      "b",
    ])
    expect(final.usage?.total_tokens).toBeGreaterThan(0)
  })

  it("reports finishReason length as an incomplete response", async () => {
    const { client } = await serve([
      { content: "cut", finishReason: "length" },
      { content: "cut", finishReason: "length" },
    ])
    const response = await client.responses.create({ model: "m", input: "hi" })
    expect(response.status).toBe("incomplete")
    expect(response.incomplete_details?.reason).toBe("max_output_tokens")
    const final = await client.responses.stream({ model: "m", input: "hi" }).finalResponse()
    expect(final.status).toBe("incomplete")
  })

  it("raises a mid-stream error event as an APIError", async () => {
    const { client } = await serve([
      {
        content: "abcdef",
        chunkSize: 1,
        interrupt: { kind: "error", afterChunks: 2, error: { message: "overloaded", code: "server_busy" } },
      },
    ])
    const stream = client.responses.stream({ model: "m", input: "hi" })
    const deltas: string[] = []
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta))
    const error = await stream.finalResponse().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain("overloaded")
    expect(deltas.join("")).toBe("ab")
  })

  it("supports withResponse() on responses.create", async () => {
    const { client } = await serve([{ content: "hello" }])
    const { data, request_id } = await client.responses.create({ model: "m", input: "hi" }).withResponse()
    expect(data.output_text).toBe("hello")
    expect(request_id).toBe("req_replay_0")
  })
})

describe("malformed requests", () => {
  async function post(
    url: string,
    body: string,
  ): Promise<{ status: number; json: { error: Record<string, unknown> } }> {
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    })
    return { status: response.status, json: (await response.json()) as { error: Record<string, unknown> } }
  }

  it("answers invalid JSON, missing model or messages with 400, without consuming a step", async () => {
    const { server, client } = await serve([{ content: "real" }])
    const invalid = await post(`${server.url}/chat/completions`, "{nope")
    expect(invalid.status).toBe(400)
    expect(invalid.json.error).toMatchObject({ type: "invalid_request_error" })
    const notObject = await post(`${server.url}/chat/completions`, "[1]")
    expect(notObject.status).toBe(400)
    const noModel = await post(`${server.url}/responses`, JSON.stringify({ input: "x" }))
    expect(noModel.status).toBe(400)
    expect(noModel.json.error).toMatchObject({ param: "model" })
    const noMessages = await post(`${server.url}/chat/completions`, JSON.stringify({ model: "m" }))
    expect(noMessages.status).toBe(400)
    expect(noMessages.json.error).toMatchObject({ param: "messages" })
    const viaClient = await client.chat.completions.create({ model: "", messages }).catch((e: unknown) => e)
    expect((viaClient as APIError).status).toBe(400)
    const completion = await client.chat.completions.create({ model: "m", messages })
    expect(completion.choices[0]!.message.content).toBe("real")
    expect(server.requests.map((request) => request.rawBody.slice(0, 5))).toEqual([
      "{nope",
      "[1]",
      '{"inp',
      '{"mod',
      '{"mod',
      '{"mod',
    ])
    expect(server.requests[0]!.body).toBeUndefined()
  })

  it("answers unknown routes with 404 and wrong methods with 405", async () => {
    const { server } = await serve([])
    const unknown = await post(`${server.url}/completions`, "{}")
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.message).toContain("/v1/completions")
    const wrong = await fetch(`${server.url}/chat/completions`)
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get("allow")).toBe("POST")
    expect(((await wrong.json()) as { error: unknown }).error).toBeDefined()
    expect(server.requests.map((request) => [request.method, request.path, request.api])).toEqual([
      ["POST", "/v1/completions", undefined],
      ["GET", "/v1/chat/completions", "chat"],
    ])
  })

  it("answers a request beyond the script with a 500 saying the script is exhausted", async () => {
    const { client } = await serve([{ content: "only one" }])
    await client.chat.completions.create({ model: "m", messages })
    const error = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e)
    expect((error as APIError).status).toBe(500)
    expect((error as APIError).message).toMatch(/script exhausted.*1 step/)
    expect((error as APIError).code).toBe("replay_script_exhausted")
  })

  it("reports a throwing script function as a 500", async () => {
    const { client } = await serve(() => {
      throw new Error("bad script")
    })
    const error = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e)
    expect((error as APIError).status).toBe(500)
    expect((error as APIError).message).toContain("bad script")
  })
})

describe("close()", () => {
  const tcpHandles = (): number =>
    process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap" || name === "TCPServerWrap")
      .length

  it("leaves no open handles, even with a stream in flight and delays pending", async () => {
    const server = await startReplayServer({
      script: [{ content: "x".repeat(100), chunkSize: 1, chunkDelayMs: 1000 }],
    })
    const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const drained = (async () => {
      for await (const _ of stream) {
        // drain until the server goes away
      }
    })().catch((e: unknown) => e)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = performance.now()
    await server.close()
    expect(performance.now() - started).toBeLessThan(3_000)
    await drained
    // Sockets close asynchronously: poll briefly, then require that none is left at all.
    for (let i = 0; i < 50 && tcpHandles() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(tcpHandles()).toBe(0)
    expect(process.getActiveResourcesInfo().filter((name) => name === "Timeout").length).toBeLessThan(5)
    // closing twice is fine
    await server.close()
  })

  it("stops streaming when the client breaks out early, and still closes cleanly", async () => {
    const server = await startReplayServer({ script: [{ content: "x".repeat(2000), chunkSize: 1 }] })
    const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    let seen = 0
    for await (const _ of stream) if (++seen === 5) break
    expect(seen).toBe(5)
    await server.close()
    for (let i = 0; i < 50 && tcpHandles() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(tcpHandles()).toBe(0)
  })

  it("refuses connections after close", async () => {
    const server = await startReplayServer({ script: [] })
    await server.close()
    await expect(fetch(`${server.url}/models`)).rejects.toThrow()
  })
})
