// Replaying any script through the real `openai` client returns exactly the scripted content,
// reasoning and tool calls, for any chunking — chat and Responses, streaming and not.
import { fc, test } from "@fast-check/vitest"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { chunked, type ReplayReply, type ReplayServer, response, startReplayServer } from "../src/index.ts"

let server: ReplayServer
let client: OpenAI
let current: ReplayReply = {}

beforeAll(async () => {
  server = await startReplayServer({ script: () => current })
  client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
})
afterAll(async () => {
  await server.close()
})

const tools = ["read_file", "bash"]
/** Text as models write it (leaks, prose, code) or anything at all, lone surrogates included. */
const text = fc.oneof(
  response({ tools }).map((sample) => sample.text),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.constantFrom("a", "<", "\ud83d", "\ude00", "\n", '"', "\\", "｜"), maxLength: 30 }),
)
const split = (value: string) => chunked(value, { maxCuts: 24 })

const script = fc.record(
  {
    content: text.chain(split),
    reasoning: text.chain(split),
    toolCalls: fc.array(
      fc.record({
        name: fc.constantFrom(...tools, "get-weather"),
        arguments: fc
          .dictionary(fc.constantFrom("path", "cmd", "x"), fc.string({ maxLength: 12 }))
          .map((args) => JSON.stringify(args))
          .chain(split),
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
)

const joined = (value: string | readonly string[] | undefined): string | undefined =>
  value === undefined ? undefined : typeof value === "string" ? value : value.join("")

const messages = [{ role: "user" as const, content: "go" }]

// Each run makes two HTTP requests through the real client: 40 runs keep the property well
// inside its timeout on a loaded two-core machine (100 took ~12 s there, near the 30 s limit).
const http = { numRuns: 40 }

describe("replay through the real openai client", () => {
  test.prop([script], http)("chat: streamed deltas and the JSON message equal the script", async (reply) => {
    current = reply
    const content = joined(reply.content)
    const reasoning = joined(reply.reasoning)
    const calls = (reply.toolCalls ?? []).map((call) => ({
      name: call.name,
      arguments: joined(call.arguments),
    }))

    const stream = await client.chat.completions.create({ model: "m", messages, stream: true })
    const deltas: string[] = []
    let streamedReasoning: string | undefined
    const streamedCalls: Array<{ name: string; arguments: string }> = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content) deltas.push(delta.content)
      const r = (delta as { reasoning_content?: string } | undefined)?.reasoning_content
      if (r !== undefined) streamedReasoning = (streamedReasoning ?? "") + r
      for (const call of delta?.tool_calls ?? []) {
        if (call.function?.name !== undefined)
          streamedCalls[call.index] = { name: call.function.name, arguments: "" }
        streamedCalls[call.index]!.arguments += call.function?.arguments ?? ""
      }
    }
    expect(deltas).toEqual(
      typeof reply.content === "string" ? [reply.content] : (reply.content ?? []).filter((d) => d !== ""),
    )
    expect(deltas.join("")).toBe(content ?? "")
    expect(streamedReasoning ?? "").toBe(reasoning ?? "")
    expect(streamedCalls).toEqual(calls)

    const completion = await client.chat.completions.create({ model: "m", messages })
    const message = completion.choices[0]!.message
    expect(message.content).toBe(content ?? null)
    expect((message as { reasoning_content?: string }).reasoning_content).toBe(reasoning)
    expect(
      (message.tool_calls ?? []).map((call) => (call.type === "function" ? call.function : call)),
    ).toEqual(calls)
  })

  test.prop([script], http)(
    "responses: stream().finalResponse() and the JSON response equal the script",
    async (reply) => {
      current = reply
      const content = joined(reply.content)
      const calls = (reply.toolCalls ?? []).map((call) => ({
        name: call.name,
        arguments: joined(call.arguments),
      }))
      const deltas: string[] = []
      const stream = client.responses.stream({ model: "m", input: "go" })
      stream.on("response.output_text.delta", (event) => deltas.push(event.delta))
      const final = await stream.finalResponse()
      const created = await client.responses.create({ model: "m", input: "go" })
      for (const result of [final, created]) {
        expect(result.output_text).toBe(content ?? "")
        const functionCalls = result.output.flatMap((item) =>
          item.type === "function_call" ? [{ name: item.name, arguments: item.arguments }] : [],
        )
        expect(functionCalls).toEqual(calls)
        const reasoning = result.output.flatMap((item) =>
          item.type === "reasoning" ? (item.content ?? []).map((part) => part.text) : [],
        )
        expect(reasoning.join("")).toBe(joined(reply.reasoning) ?? "")
      }
      expect(deltas.join("")).toBe(content ?? "")
    },
  )
})
