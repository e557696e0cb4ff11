/**
 * The dual-package hazard: a client built from the CommonJS copy of `openai` has different
 * `Stream` and `APIPromise` classes than the ESM copy. The wrapper takes constructors from the
 * live objects it is handed, so it works with either.
 */
import { createRequire } from "node:module"
import type OpenAIType from "openai"
import { describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { chatTool, collect, contentOf, harness, leak } from "./support/harness.ts"

const require = createRequire(import.meta.url)
const cjs = require("openai") as { default: typeof OpenAIType; OpenAI: typeof OpenAIType }
const { Stream: CjsStream } = require("openai/streaming") as { Stream: new (...args: never[]) => unknown }
const { Stream: EsmStream } = await import("openai/streaming")

describe("a client from the CommonJS copy of openai", () => {
  it("recovers a streamed leak and returns the CommonJS Stream class", async () => {
    expect(CjsStream).not.toBe(EsmStream)
    const sample = leak("L8")
    const { server } = await harness([
      { content: sample.text, chunkSize: 5 },
      { toolCalls: [{ name: "GrepTool", arguments: "{}" }] },
    ])
    const client = withToolCallRecovery(
      new cjs.OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 }),
    )
    expect(client).toBeInstanceOf(cjs.OpenAI)
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "go" }],
      tools: sample.tools.map(chatTool),
      stream: true,
    })
    expect(stream).toBeInstanceOf(CjsStream)
    const chunks = await collect(stream)
    expect(contentOf(chunks)).toBe(sample.text.slice(0, sample.text.indexOf("<tool_call>")))
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    expect(server.requests).toHaveLength(2)
  })
})
