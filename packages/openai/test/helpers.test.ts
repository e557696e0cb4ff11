import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import type OpenAI from "openai"
import { zodFunction, zodResponsesFunction } from "openai/helpers/zod"
import type { RunnableToolFunctionWithParse } from "openai/lib/RunnableFunction"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { harness, leak, responsesTool, sentText } from "./support/harness.ts"

const sample = leak("L1")
const safePrefix = sample.text.slice(0, sample.text.indexOf("<function="))
const call = { name: "Glob", arguments: '{"pattern":"*.md"}', id: "call_glob" }
const user: OpenAI.ChatCompletionMessageParam = { role: "user", content: "List the markdown files." }
const globTool = zodFunction({ name: "Glob", parameters: z.object({ pattern: z.string() }) })

describe("the SDK's helpers go through recovery", () => {
  it("chat.completions.stream(): events and finalChatCompletion() show the recovered turn", async () => {
    const { client, server } = await harness([{ content: sample.text, chunkSize: 2 }, { toolCalls: [call] }])
    const runner = client.chat.completions.stream({ model: "m", messages: [user], tools: [globTool] })
    let content = ""
    const done: string[] = []
    runner.on("content.delta", ({ delta }) => {
      content += delta
    })
    runner.on("tool_calls.function.arguments.done", ({ name, parsed_arguments }) => {
      done.push(`${name}:${JSON.stringify(parsed_arguments)}`)
    })
    const final = await runner.finalChatCompletion()
    expect(content).toBe(safePrefix)
    expect(done).toEqual(['Glob:{"pattern":"*.md"}'])
    expect(final.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      function: { name: "Glob", parsed_arguments: { pattern: "*.md" } },
    })
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]!.headers["x-stainless-helper-method"]).toBe("stream")
  })

  it("chat.completions.stream(): a second malformed response rejects finalChatCompletion() (the SDK wraps it as `cause`)", async () => {
    const { client } = await harness([{ content: sample.text }, { content: sample.text }])
    const runner = client.chat.completions.stream({ model: "m", messages: [user], tools: [globTool] })
    const error = await runner.finalChatCompletion().then(
      () => undefined,
      (e: unknown) => e,
    )
    // The SDK's event streams wrap an error that is not an OpenAIError; ours is its `cause`, and
    // the guard recognises the wrapper (same message) and gives it ours' fields.
    expect(isToolCallRecoveryError((error as Error).cause)).toBe(true)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect((error as Error).message).toContain("as text instead of a structured call")
  })

  it("chat.completions.parse(): the recovered call's arguments are parsed", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const parsed = await client.chat.completions.parse({ model: "m", messages: [user], tools: [globTool] })
    expect(parsed.choices[0]!.message.tool_calls).toMatchObject([
      { function: { parsed_arguments: { pattern: "*.md" } } },
    ])
    expect(server.requests[0]!.headers["x-stainless-helper-method"]).toBe("chat.completions.parse")
    expect(server.requests).toHaveLength(2)
  })

  it.each([false, true])(
    "chat.completions.runTools() (stream: %s) runs the recovered call exactly once",
    async (stream) => {
      const { client, server } = await harness([
        { content: sample.text, chunkSize: 5 },
        { toolCalls: [call] },
        { content: "README.md and CHANGELOG.md." },
      ])
      const ran: unknown[] = []
      const tool: RunnableToolFunctionWithParse<{ pattern: string }> = {
        type: "function",
        function: {
          name: "Glob",
          description: "Lists files matching a glob pattern.",
          parameters: { type: "object", properties: { pattern: { type: "string" } } },
          parse: (text: string) => JSON.parse(text) as { pattern: string },
          function: (args: { pattern: string }) => {
            ran.push(args)
            return "README.md\nCHANGELOG.md"
          },
        },
      }
      const runner = stream
        ? client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool], stream: true })
        : client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
      expect(await runner.finalContent()).toBe("README.md and CHANGELOG.md.")
      expect(ran).toEqual([{ pattern: "*.md" }])
      expect(server.requests).toHaveLength(3)
      // The tool-result turn holds the retry's structured call, never the leaked text.
      const third = server.requests[2]!.body!
      expect(sentText(third)).not.toContain("<function=")
      expect(third.messages?.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_glob" })
    },
  )

  it("responses.stream(): finalResponse() is one response with the safe text and the recovered call", async () => {
    const { client, server } = await harness([{ content: sample.text, chunkSize: 3 }, { toolCalls: [call] }])
    const runner = client.responses.stream({
      model: "m",
      input: "List the markdown files.",
      tools: [responsesTool("Glob")],
    })
    let text = ""
    runner.on("response.output_text.delta", ({ delta }) => {
      text += delta
    })
    const final = await runner.finalResponse()
    expect(text).toBe(safePrefix)
    expect(final.id).toBe("resp_replay_0")
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call"])
    expect(final.output_text).toBe(safePrefix)
    expect(server.requests).toHaveLength(2)
  })

  it("responses.parse(): parses the recovered call's arguments", async () => {
    const { client, server } = await harness([{ content: sample.text }, { toolCalls: [call] }])
    const parsed = await client.responses.parse({
      model: "m",
      input: "List the markdown files.",
      tools: [zodResponsesFunction({ name: "Glob", parameters: z.object({ pattern: z.string() }) })],
    })
    const fc = parsed.output.find((item) => item.type === "function_call")
    expect(fc).toMatchObject({ name: "Glob", parsed_arguments: { pattern: "*.md" } })
    expect(server.requests).toHaveLength(2)
  })
})
