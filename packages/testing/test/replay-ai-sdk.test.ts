import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { fc } from "@fast-check/vitest"
import { generateText, streamText, tool } from "ai"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { chunked, type ReplayScript, type ReplayServer, response, startReplayServer } from "../src/index.ts"

const servers: ReplayServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function model(script: ReplayScript, includeUsage = true) {
  const server = await startReplayServer({ script })
  servers.push(server)
  const provider = createOpenAICompatible({
    name: "replay",
    baseURL: server.url,
    apiKey: "test",
    includeUsage,
  })
  return { server, model: provider.chatModel("qwen3-coder") }
}

// An `execute` makes the tool type fit ai's `ToolSet` under `exactOptionalPropertyTypes`; the
// default `stopWhen` (one step) means no second request follows the call.
const executed: unknown[] = []
const tools = {
  read_file: tool({
    description: "Read a file",
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => {
      executed.push(input)
      return "contents"
    },
  }),
}

const leak =
  "I'll read it.\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>"

describe("ai streamText / generateText with @ai-sdk/openai-compatible over real HTTP", () => {
  it("streamText gets text (split into 1-character deltas), reasoning, a structured tool call and usage", async () => {
    const { server, model: m } = await model([
      {
        content: leak,
        reasoning: "The user wants a file.",
        toolCalls: [{ name: "read_file", arguments: '{"path":"src/a.ts"}', id: "call_1" }],
        chunkSize: 1,
        usage: { inputTokens: 12, outputTokens: 34 },
      },
    ])
    const result = streamText({ model: m, prompt: "read src/a.ts", tools, maxRetries: 0, onError: () => {} })
    const textDeltas: string[] = []
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") textDeltas.push(part.text)
      if (part.type === "error") throw part.error
    }
    expect(textDeltas.join("")).toBe(leak)
    expect(textDeltas.length).toBe(leak.length)
    expect(await result.text).toBe(leak)
    expect(await result.reasoningText).toBe("The user wants a file.")
    const calls = await result.toolCalls
    expect(calls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ["call_1", "read_file", { path: "src/a.ts" }],
    ])
    expect(await result.finishReason).toBe("tool-calls")
    expect((await result.usage).inputTokens).toBe(12)
    expect((await result.usage).outputTokens).toBe(34)
    const body = server.requests[0]!.body!
    expect(body.stream).toBe(true)
    expect(body.stream_options).toEqual({ include_usage: true })
    expect((body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      "read_file",
    ])
  })

  it("generateText gets text and a structured tool call", async () => {
    const { server, model: m } = await model([
      { content: "Reading.", toolCalls: [{ name: "read_file", arguments: '{"path":"b.ts"}' }] },
    ])
    const result = await generateText({ model: m, prompt: "read b.ts", tools, maxRetries: 0 })
    expect(result.text).toBe("Reading.")
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ["read_file", { path: "b.ts" }],
    ])
    expect(result.finishReason).toBe("tool-calls")
    expect(server.requests[0]!.body!.stream).toBeUndefined()
  })

  it("streamText surfaces a scripted HTTP error and a mid-stream error", async () => {
    const { model: m } = await model([
      { httpError: { status: 400, message: "bad request here" } },
      {
        content: "abc",
        chunkSize: 1,
        interrupt: { kind: "error", afterChunks: 1, error: { message: "mid-stream" } },
      },
    ])
    const first = streamText({ model: m, prompt: "x", maxRetries: 0, onError: () => {} })
    const errors: unknown[] = []
    for await (const part of first.fullStream) if (part.type === "error") errors.push(part.error)
    expect(String((errors[0] as Error).message)).toContain("bad request here")

    const second = streamText({ model: m, prompt: "x", maxRetries: 0, onError: () => {} })
    const parts: string[] = []
    let text = ""
    for await (const part of second.fullStream) {
      parts.push(part.type)
      if (part.type === "text-delta") text += part.text
    }
    expect(text).toBe("a")
    expect(parts).toContain("error")
  })

  it("works without include_usage (no usage-only chunk)", async () => {
    const { server, model: m } = await model([{ content: "plain", chunkSize: 2 }], false)
    const result = streamText({ model: m, prompt: "x", maxRetries: 0, onError: () => {} })
    expect(await result.text).toBe("plain")
    expect(await result.finishReason).toBe("stop")
    expect(server.requests[0]!.body!.stream_options).toBeUndefined()
  })
})

describe("fuzzing streamText over the replay server (the README recipe, without recovery)", () => {
  it("any response, any chunking: streamText's text is the scripted text and the call comes through", async () => {
    const names = ["read_file"]
    await fc.assert(
      fc.asyncProperty(
        response({ tools: names }).chain((leak) => fc.tuple(fc.constant(leak), chunked(leak.text))),
        async ([leak, chunks]) => {
          const server = await startReplayServer({
            script: [{ content: chunks, toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }],
          })
          try {
            const provider = createOpenAICompatible({ name: "replay", baseURL: server.url })
            const result = streamText({ model: provider("m"), prompt: "read a.ts", tools, maxRetries: 0 })
            const deltas: string[] = []
            for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text)
            expect(deltas.join("")).toBe(leak.text)
            expect(deltas).toEqual(chunks)
            expect((await result.toolCalls).map((call) => call.input)).toEqual([{ path: "a.ts" }])
          } finally {
            await server.close()
          }
        },
      ),
      { numRuns: 30 },
    )
  })
})
