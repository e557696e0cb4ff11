/**
 * Over real HTTP: `@ai-sdk/openai-compatible` (the provider Ollama, LM Studio and vLLM users
 * use) against the replay server of `@tool-rescue/testing`, scripted with real leaked samples
 * from the corpus.
 */
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { corpus, type ReplayStep } from "@tool-rescue/testing"
import {
  extractReasoningMiddleware,
  generateText,
  isStepCount,
  type LanguageModelMiddleware,
  streamText,
  type Tool,
  tool,
  wrapLanguageModel,
} from "ai"
import { describe, expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import { replayChatModels } from "./support/replay-chat-models.ts"

const replayChatModel = replayChatModels()

async function serve(script: readonly ReplayStep[], inner: readonly LanguageModelMiddleware[] = []) {
  const { server, model: replayed } = await replayChatModel(script)
  const events: RecoveryEvent[] = []
  const model = wrapLanguageModel({
    model: replayed,
    middleware: [toolCallRecoveryMiddleware({ onEvent: (event) => events.push(event) }), ...inner],
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
      expect(isRetryRequest(retry?.[0]?.content)).toBe(true)
      // The original request, plus the instruction, and nothing of the malformed response.
      expect(retry?.slice(1)).toEqual(first)
      expect(JSON.stringify(retry)).not.toContain(JSON.stringify(sample.text).slice(1, -1))
      for (const span of withheld())
        expect(server.requests[1]?.rawBody).not.toContain(JSON.stringify(span).slice(1, -1))
      expect(server.requests[1]?.body?.tools).toEqual(server.requests[0]?.body?.tools)
    },
  )

  test("the retry's text starts on a new line after the prose the first attempt showed", async () => {
    const leak =
      "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>"
    const { server, model } = await serve([
      { content: `I will run it.${leak}`, chunkSize: 4 },
      {
        content: "Calling the tool properly.",
        toolCalls: [{ name: "bash", arguments: '{"command":"ls"}' }],
      },
    ])
    const { tools } = toolsFor(["bash"])
    const result = streamText({ model, prompt: "List files.", tools, maxRetries: 0 })
    let shown = ""
    for await (const text of result.textStream) shown += text
    expect(shown).toBe("I will run it.\nCalling the tool properly.")
    // The retry was told what the user saw, to continue rather than repeat it.
    expect(server.requests[1]?.rawBody).toContain("already saw the text before that call")
  })

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

describe("reasoning over HTTP", () => {
  const qwenCall = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

  test("with extractReasoningMiddleware: <think> in content becomes reasoning, the leak after it is recovered", async () => {
    const { server, model } = await serve(
      [
        { content: `<think>The user wants a.ts.</think>I'll read it.\n${qwenCall}`, chunkSize: [2, 5] },
        { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
      ],
      [extractReasoningMiddleware({ tagName: "think" })],
    )
    const { tools, executed } = toolsFor(["read_file", "bash"])
    const result = streamText({ model, prompt: "Read a.ts.", tools, maxRetries: 0 })
    expect(await result.text).toBe("I'll read it.\n")
    expect(await result.reasoningText).toBe("The user wants a.ts.")
    expect(executed).toEqual([{ name: "read_file", input: { path: "a.ts" } }])
    expect(server.requests).toHaveLength(2)
  })

  test("a call written in reasoning_content with no answer after it (Kimi K2 Thinking) is recovered", async () => {
    const kimi =
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "a.ts"}<|tool_call_end|><|tool_calls_section_end|>'
    const { server, model, withheld } = await serve([
      { reasoning: `I need the file.\n${kimi}`, chunkSize: 3 },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
    ])
    const { tools, executed } = toolsFor(["read_file", "bash"])
    const result = streamText({ model, prompt: "Read a.ts.", tools, maxRetries: 0 })
    const reasoning = (await result.reasoningText) ?? ""
    expect(reasoning).not.toContain("tool_call")
    expect(reasoning.startsWith("I need the file.")).toBe(true)
    expect(withheld()).toHaveLength(1)
    expect(executed).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
  })

  test("a call rehearsed in reasoning_content, then answered, is withheld and not retried", async () => {
    const { server, model } = await serve([
      {
        reasoning: `Maybe:\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\nNo need.`,
        content: "It is a TypeScript file.",
      },
    ])
    const { tools, executed } = toolsFor(["read_file"])
    const result = streamText({ model, prompt: "What is a.ts?", tools, maxRetries: 0 })
    expect(await result.text).toBe("It is a TypeScript file.")
    expect((await result.reasoningText) ?? "").not.toContain("<tool_call>")
    expect(executed).toEqual([])
    expect(server.requests).toHaveLength(1)
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
