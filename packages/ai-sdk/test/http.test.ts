/**
 * Over real HTTP: `@ai-sdk/openai-compatible` (the provider Ollama, LM Studio and vLLM users
 * use) against the replay server of `@tool-rescue/testing`, scripted with real leaked samples
 * from the corpus.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { corpus, type ReplayServer, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import { generateText, isStepCount, streamText, type Tool, tool, wrapLanguageModel } from "ai"
import { afterEach, describe, expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"

const servers: ReplayServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(script: readonly ReplayStep[]) {
  const server = await startReplayServer({ script })
  servers.push(server)
  const provider = createOpenAICompatible({
    name: "replay",
    baseURL: server.url,
    apiKey: "test",
    includeUsage: true,
  })
  const events: RecoveryEvent[] = []
  const model = wrapLanguageModel({
    model: provider.chatModel("qwen3-coder"),
    middleware: toolCallRecoveryMiddleware({ onEvent: (event) => events.push(event) }),
  })
  /** The recoverable markup withheld so far, as recovery reported it (trimmed). */
  const withheld = () =>
    events.flatMap((e) => (e.type === "markup-detected" && e.recoverable ? [e.text.trim()] : []))
  return { server, model, withheld }
}

/** A real `execute` tool per offered name, recording each execution. */
function toolsFor(names: readonly string[]) {
  const executed: Array<{ name: string; input: unknown }> = []
  const tools: Record<string, Tool> = {}
  for (const name of names) {
    tools[name] = tool({
      description: `The ${name} tool`,
      inputSchema: z.record(z.string(), z.unknown()),
      execute: async (input) => {
        executed.push({ name, input })
        return `${name} done`
      },
    })
  }
  return { tools, executed }
}

const leaks = corpus.filter((sample) => sample.scope === "core" && sample.expect.leak)

describe("streamText over HTTP with corpus leaks", () => {
  test("the corpus has core leaks to replay", () => {
    expect(leaks.length).toBeGreaterThanOrEqual(5)
  })

  test.each(leaks.map((sample) => [sample.id, sample] as const))(
    "%s: recovers, runs the tool exactly once, the retry request holds the instruction and no markup",
    async (_id, sample) => {
      const toolName = sample.expect.tools[0] ?? ""
      const { server, model, withheld } = await serve([
        { content: sample.text, chunkSize: [1, 4, 11] },
        { toolCalls: [{ name: toolName, arguments: '{"from":"retry"}' }] },
        { content: "All done." },
      ])
      const { tools, executed } = toolsFor(sample.tools)
      const result = streamText({
        model,
        prompt: "Do the task.",
        tools,
        stopWhen: isStepCount(2),
        maxRetries: 0,
      })
      let shown = ""
      for await (const text of result.textStream) shown += text

      expect(executed).toEqual([{ name: toolName, input: { from: "retry" } }])
      expect(withheld().length).toBeGreaterThan(0)
      for (const span of withheld()) {
        // What was withheld is part of the model's text, and none of it reached the screen.
        expect(sample.text).toContain(span)
        expect(shown).not.toContain(span)
      }
      expect(shown.endsWith("All done.")).toBe(true)

      expect(server.requests).toHaveLength(3)
      const [first, retry] = server.requests.map((r) => r.body?.messages ?? [])
      expect(retry?.[0]?.role).toBe("system")
      expect(String(retry?.[0]?.content)).toMatch(/structured tool-call format/)
      // The original request, plus the instruction, and nothing of the malformed response.
      expect(retry?.slice(1)).toEqual(first)
      expect(JSON.stringify(retry)).not.toContain(JSON.stringify(sample.text).slice(1, -1))
      for (const span of withheld())
        expect(server.requests[1]?.rawBody).not.toContain(JSON.stringify(span).slice(1, -1))
      expect(server.requests[1]?.body?.tools).toEqual(server.requests[0]?.body?.tools)
    },
  )

  test("a second malformed response ends the step with the explicit error", async () => {
    const sample = leaks[0]!
    const { server, model, withheld } = await serve([
      { content: sample.text, chunkSize: 3 },
      { content: sample.text, chunkSize: 5 },
    ])
    const { tools, executed } = toolsFor(sample.tools)
    const result = streamText({ model, prompt: "Do the task.", tools, maxRetries: 0, onError: () => {} })
    const errors: unknown[] = []
    let shown = ""
    for await (const part of result.fullStream) {
      if (part.type === "error") errors.push(part.error)
      if (part.type === "text-delta") shown += part.text
    }
    expect(errors).toHaveLength(1)
    expect(isToolCallRecoveryError(errors[0]) && errors[0].code).toBe("repeated-markup")
    expect(await result.finishReason).toBe("error")
    expect(executed).toEqual([])
    expect(server.requests).toHaveLength(2)
    expect(withheld().length).toBeGreaterThanOrEqual(2)
    for (const span of withheld()) expect(shown).not.toContain(span)
  })

  test("reasoning_content and text are spliced with unique ids across attempts", async () => {
    const sample = leaks[0]!
    const { model } = await serve([
      { reasoning: "The user wants files.", content: sample.text, chunkSize: 2 },
      {
        reasoning: "Use the real interface.",
        toolCalls: [{ name: sample.expect.tools[0] ?? "", arguments: "{}" }],
      },
    ])
    const { tools, executed } = toolsFor(sample.tools)
    const result = streamText({ model, prompt: "Do the task.", tools, maxRetries: 0 })
    const starts: string[] = []
    for await (const part of result.fullStream) {
      if (part.type === "text-start" || part.type === "reasoning-start")
        starts.push(`${part.type}:${part.id}`)
    }
    expect(new Set(starts).size).toBe(starts.length)
    expect(await result.reasoningText).toBe("The user wants files.Use the real interface.")
    expect(executed).toHaveLength(1)
  })
})

describe("generateText over HTTP", () => {
  test("recovers a leak from a JSON (non-streaming) response", async () => {
    const sample = leaks[0]!
    const toolName = sample.expect.tools[0] ?? ""
    const { server, model } = await serve([
      { content: sample.text },
      { toolCalls: [{ name: toolName, arguments: "{}" }] },
      { content: "All done." },
    ])
    const { tools, executed } = toolsFor(sample.tools)
    const result = await generateText({
      model,
      system: "Be brief.",
      prompt: "Do the task.",
      tools,
      stopWhen: isStepCount(2),
      maxRetries: 0,
    })
    expect(executed.map((e) => e.name)).toEqual([toolName])
    expect(result.text).toBe("All done.")
    const retry = server.requests[1]?.body?.messages ?? []
    expect(retry[0]?.role).toBe("system")
    expect(String(retry[0]?.content)).toMatch(/^Be brief\.\n\n/)
    expect(retry.filter((m) => m.role === "system")).toHaveLength(1)
    expect(server.requests[1]?.body?.stream).not.toBe(true)
  })

  test("a second malformed JSON response rejects with the branded error", async () => {
    const sample = leaks[0]!
    const { model } = await serve([{ content: sample.text }, { content: sample.text }])
    const { tools } = toolsFor(sample.tools)
    const error = await generateText({ model, prompt: "Do the task.", tools, maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
  })
})
