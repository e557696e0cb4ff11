import type { ReplayRequest } from "@tool-rescue/testing"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const TURNS = 200

/** The turn number a request is about (its user message), and whether it is a retry. */
function turnOf(request: ReplayRequest): { n: string; retry: boolean } {
  const messages = request.body?.messages ?? []
  const user = messages.find((m) => m.role === "user")
  return { n: String(user?.content ?? "").replace("file ", ""), retry: messages[0]?.role === "system" }
}

describe("200 concurrent streamed turns", () => {
  it("each gets its own text and its own recovered call, with no cross-talk", async () => {
    harness = await startHarness((request) => {
      const { n, retry } = turnOf(request)
      return retry
        ? {
            content: `retry ${n}.`,
            toolCalls: [{ name: "read_file", arguments: `{"path":"${n}.ts"}` }],
            chunkSize: 5,
          }
        : {
            content: `turn ${n} reads.\n<tool_call>\n<function=read_file>\n<parameter=path>\n${n}.ts\n</parameter>\n</function>\n</tool_call>`,
            // Cut so that turns interleave mid-markup, in few deltas: 200 turns × 2 attempts run
            // through client, proxy and upstream at once, on a machine that may be loaded.
            chunkSize: [9, 23, 17],
          }
    })
    const client = new OpenAI({ baseURL: harness.proxy.url, apiKey: "k", maxRetries: 0 })
    const results = await Promise.all(
      Array.from({ length: TURNS }, async (_, i) => {
        const stream = await client.chat.completions.create({
          model: "m",
          stream: true,
          messages: [{ role: "user", content: `file ${i}` }],
          tools: [READ_FILE_TOOL],
        })
        let text = ""
        let args = ""
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? ""
          for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? ""
        }
        return { i, text, args }
      }),
    )
    for (const { i, text, args } of results) {
      expect(text).toBe(`turn ${i} reads.\nretry ${i}.`)
      expect(JSON.parse(args)).toEqual({ path: `${i}.ts` })
    }
    expect(harness.turns()).toBe(2 * TURNS)
    expect(harness.failed).toHaveLength(TURNS)
  }, 120_000)
})
