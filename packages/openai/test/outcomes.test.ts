/**
 * The outcomes beyond a plain leak (ARCHITECTURE.md#policy), through the real `openai` client over
 * HTTP against the replay server: a call cut off by the output limit, a leak naming a tool that
 * is not offered (opt-in), an announced-but-missing call (opt-in), and "did you mean" in the
 * model-visible error of `unknownToolCalls: "return"`.
 */
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { startReplayServer } from "@tool-rescue/testing"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { chatTool, harness, responsesTool } from "./support/harness.ts"

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Write the report." }]
const CUT_OFF =
  '<tool_call>\n{"name": "write_file", "arguments": {"path": "report.md", "content": "# Report\\n\\nLorem ipsum'
const tools = [chatTool("write_file"), chatTool("read_file")]
const systemText = (body: { messages?: ReadonlyArray<{ role: string; content?: unknown }> } | undefined) =>
  String(body?.messages?.find((m) => m.role === "system")?.content ?? "")

describe("a call cut off by the output limit", () => {
  it.each([false, true])(
    "twice (stream: %s) ends with truncated-call; the retry says it was cut off",
    async (stream) => {
      const { client, server } = await harness([
        { content: CUT_OFF, finishReason: "length", chunkSize: 7 },
        { content: CUT_OFF, finishReason: "length", chunkSize: 7 },
      ])
      const run = async () => {
        if (!stream) return client.chat.completions.create({ model: "m", messages, tools })
        const s = await client.chat.completions.create({ model: "m", messages, tools, stream: true })
        let text = ""
        for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? ""
        return text
      }
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isToolCallRecoveryError(error) && error.code).toBe("truncated-call")
      expect(server.requests).toHaveLength(2)
      const instruction = systemText(server.requests[1]?.body)
      expect(instruction).toContain("cut off by the output limit")
      expect(instruction).toContain("concise arguments")
    },
  )

  it("once, then a structured call: recovered; the Responses API's max_output_tokens counts too", async () => {
    const { client, server } = await harness([
      { content: CUT_OFF, finishReason: "length" },
      { toolCalls: [{ name: "write_file", arguments: '{"path":"report.md"}' }] },
    ])
    const response = await client.responses.create({
      model: "m",
      input: "Write the report.",
      tools: [responsesTool("write_file")],
    })
    expect(response.output.some((item) => item.type === "function_call" && item.name === "write_file")).toBe(
      true,
    )
    expect(server.requests).toHaveLength(2)
    expect(String(server.requests[1]?.body?.instructions ?? "")).toContain("cut off by the output limit")
  })
})

describe('unknownToolMarkup: "retry"', () => {
  const TYPO =
    "<tool_call>\n<function=writeFile>\n<parameter=path>\nreport.md\n</parameter>\n</function>\n</tool_call>"

  it("retries once, naming the missing tool, the near miss and the offered tools", async () => {
    const { client, server } = await harness(
      [{ content: TYPO }, { toolCalls: [{ name: "write_file", arguments: '{"path":"report.md"}' }] }],
      { unknownToolMarkup: "retry" },
    )
    const completion = await client.chat.completions.create({ model: "m", messages, tools })
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: "write_file" } })
    const instruction = systemText(server.requests[1]?.body)
    expect(instruction).toContain('no tool named "writeFile" exists')
    expect(instruction).toContain('Did you mean "write_file"?')
    expect(instruction).toContain("write_file, read_file")
  })

  it("by default, no retry: the markup stays withheld", async () => {
    const { client, server } = await harness([{ content: `Writing.\n${TYPO}` }])
    const completion = await client.chat.completions.create({ model: "m", messages, tools })
    expect(server.requests).toHaveLength(1)
    expect(completion.choices[0]?.message.content).toBe("Writing.\n")
  })
})

describe('announcedCalls: "retry"', () => {
  const ANNOUNCE = "I'll use the write_file tool to save the report."

  it("an answer that ends by announcing an offered tool gets one retry", async () => {
    const { client, server } = await harness(
      [{ content: ANNOUNCE }, { toolCalls: [{ name: "write_file", arguments: '{"path":"report.md"}' }] }],
      { announcedCalls: "retry" },
    )
    const completion = await client.chat.completions.create({ model: "m", messages, tools })
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1)
    expect(systemText(server.requests[1]?.body)).toContain(
      'said you would call "write_file", but no call was made',
    )
  })

  it("never on prose that only mentions a tool, and not by default", async () => {
    const mention = await harness([{ content: "The write_file tool saves files; I used it before." }], {
      announcedCalls: "retry",
    })
    await mention.client.chat.completions.create({ model: "m", messages, tools })
    expect(mention.server.requests).toHaveLength(1)
    const off = await harness([{ content: ANNOUNCE }])
    await off.client.chat.completions.create({ model: "m", messages, tools })
    expect(off.server.requests).toHaveLength(1)
  })
})

describe('unknownToolCalls: "return" says "did you mean"', () => {
  const servers: Array<{ close(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })

  it("the model-visible error names the near miss before the offered list", async () => {
    const server = await startReplayServer({
      script: [{ toolCalls: [{ name: "read_files", arguments: '{"path":"a"}' }] }],
    })
    servers.push(server)
    const client = withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "t", maxRetries: 0 }), {
      unknownToolCalls: "return",
    })
    const completion = await client.chat.completions.create({ model: "m", messages, tools })
    const [error] = completion.tool_call_errors
    expect(error?.name).toBe("read_files")
    expect(error?.error).toContain('Did you mean "read_file"?')
    expect(error?.error).toContain("Available tools: write_file, read_file.")
  })
})
