/**
 * The outcomes beyond a plain leak through the real `ai` over HTTP (`@ai-sdk/openai-compatible`
 * against the replay server): a call cut off by the output limit, and the opt-in retries of a
 * leak naming an unknown tool and of an announced-but-missing call.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { isToolCallRecoveryError, type RecoveryOptions } from "@tool-rescue/recovery"
import { type ReplayServer, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from "ai"
import { afterEach, describe, expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"

const servers: ReplayServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(script: readonly ReplayStep[], options: RecoveryOptions = {}) {
  const server = await startReplayServer({ script })
  servers.push(server)
  const provider = createOpenAICompatible({ name: "replay", baseURL: server.url, apiKey: "test" })
  const model = wrapLanguageModel({
    model: provider.chatModel("m"),
    middleware: toolCallRecoveryMiddleware(options),
  })
  const written: string[] = []
  const tools = {
    write_file: tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        written.push(path)
        return "ok"
      },
    }),
  }
  return { server, model, tools, written }
}

const systemOf = (server: ReplayServer, i: number) =>
  String(server.requests[i]?.body?.messages?.find((m) => m.role === "system")?.content ?? "")
const CUT_OFF =
  '<tool_call>\n{"name": "write_file", "arguments": {"path": "report.md", "content": "Lorem ipsum'
const structured: ReplayStep = { toolCalls: [{ name: "write_file", arguments: '{"path":"report.md"}' }] }

describe("AI SDK: outcomes beyond a plain leak", () => {
  test("cut off twice by the output limit: streamText reports truncated-call; the retry says why", async () => {
    const { server, model, tools, written } = await serve([
      { content: CUT_OFF, finishReason: "length", chunkSize: 5 },
      { content: CUT_OFF, finishReason: "length", chunkSize: 5 },
    ])
    const errors: unknown[] = []
    const result = streamText({
      model,
      prompt: "Write it.",
      tools,
      onError: ({ error }) => errors.push(error),
    })
    let text = ""
    for await (const delta of result.textStream) text += delta
    expect(errors.map((e) => isToolCallRecoveryError(e) && e.code)).toEqual(["truncated-call"])
    expect(text).not.toContain("write_file")
    expect(written).toEqual([])
    expect(systemOf(server, 1)).toContain("cut off by the output limit")
  })

  test("unknownToolMarkup 'retry': the typo is named with its near miss, and the real call runs once", async () => {
    const typo =
      "<tool_call>\n<function=writeFile>\n<parameter=path>\nreport.md\n</parameter>\n</function>\n</tool_call>"
    const { server, model, tools, written } = await serve(
      [{ content: typo }, structured, { content: "Saved." }],
      {
        unknownToolMarkup: "retry",
      },
    )
    const result = await generateText({ model, prompt: "Write it.", tools, stopWhen: isStepCount(3) })
    expect(written).toEqual(["report.md"])
    expect(result.text).toBe("Saved.")
    expect(systemOf(server, 1)).toContain('Did you mean "write_file"?')
  })

  test("announcedCalls 'retry': an announced-but-missing call is retried once and then runs", async () => {
    const { server, model, tools, written } = await serve(
      [{ content: "I'll use the write_file tool to save it." }, structured, { content: "Saved." }],
      { announcedCalls: "retry" },
    )
    const result = await generateText({ model, prompt: "Write it.", tools, stopWhen: isStepCount(3) })
    expect(written).toEqual(["report.md"])
    expect(result.text).toBe("Saved.")
    expect(systemOf(server, 1)).toContain('said you would call "write_file"')
  })
})
