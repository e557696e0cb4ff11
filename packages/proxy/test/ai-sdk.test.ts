import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { jsonSchema, streamText, tool } from "ai"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe("the AI SDK (@ai-sdk/openai-compatible) through the proxy, no middleware", () => {
  it("streamText gets the structured call after a leak and runs the tool once", async () => {
    harness = await startHarness([
      { content: `Reading it.\n${QWEN_LEAK}`, chunkSize: 3 },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const provider = createOpenAICompatible({ name: "local", baseURL: harness.proxy.url, apiKey: "k" })
    const runs: string[] = []
    const result = streamText({
      model: provider("qwen3-coder"),
      prompt: "Show me a.ts",
      tools: {
        read_file: tool({
          inputSchema: jsonSchema<{ path: string }>({
            type: "object",
            properties: { path: { type: "string" } },
          }),
          execute: async ({ path }) => {
            runs.push(path)
            return "export {}"
          },
        }),
      },
    })
    expect(await result.text).toBe("Reading it.\n")
    expect(runs).toEqual(["a.ts"])
    expect((await result.toolCalls).map((call) => call.toolName)).toEqual(["read_file"])
    expect(harness.turns()).toBe(2)
  })
})
