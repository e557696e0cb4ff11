/**
 * The recovery contract as an AI SDK user sees it, through the real `ai` (`streamText`,
 * `generateText`, `wrapLanguageModel`) over `MockLanguageModelV4`.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider"
import { type FailedResponse, isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import {
  extractReasoningMiddleware,
  generateText,
  isStepCount,
  NoSuchToolError,
  streamText,
  ToolChoiceViolationError,
  tool,
  wrapLanguageModel,
} from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { describe, expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import {
  chunk,
  MARKUP_FRAGMENTS,
  type Part,
  promptText,
  QWEN_LEAK,
  QWEN_MARKUP,
  QWEN_PROSE,
  type Reply,
  readAll,
  replyParts,
  scriptedModel,
  streamReply,
  systemText,
  usage,
  wellFormed,
} from "./fixtures.ts"

/** The Glob/Read/Bash tools of corpus sample L1, with execution counters. */
function globTools() {
  const calls: unknown[] = []
  return {
    calls,
    tools: {
      Glob: tool({
        description: "Find files by pattern",
        inputSchema: z.object({ pattern: z.string() }),
        execute: async ({ pattern }) => {
          calls.push(pattern)
          return ["README.md", "DESIGN.md"]
        },
      }),
      Read: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "contents" }),
      Bash: tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "ok" }),
    },
  }
}

const leak: Reply = { text: chunk(QWEN_LEAK, 7), responseId: "resp-leak" }
const call: Reply = { calls: [{ toolName: "Glob", input: { pattern: "*.md" } }], responseId: "resp-call" }
const answer: Reply = { text: ["Found ", "README.md and DESIGN.md."], responseId: "resp-answer" }

function wrap(model: LanguageModelV4, options?: Parameters<typeof toolCallRecoveryMiddleware>[0]) {
  return wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware(options) })
}

function hasMarkup(text: string): boolean {
  return MARKUP_FRAGMENTS.some((fragment) => text.includes(fragment))
}

describe("streamText", () => {
  test("a leaked call is withheld, retried, and the tool runs exactly once", async () => {
    const inner = scriptedModel([leak, call, answer])
    const { tools, calls } = globTools()
    const events: RecoveryEvent[] = []
    const result = streamText({
      model: wrap(inner, { onEvent: (event) => events.push(event) }),
      system: "You are a coding agent.",
      prompt: "List the markdown files.",
      tools,
      stopWhen: isStepCount(3),
    })
    let shown = ""
    for await (const text of result.textStream) shown += text
    expect(shown).toBe(QWEN_PROSE + "Found README.md and DESIGN.md.")
    expect(hasMarkup(shown)).toBe(false)
    expect(calls).toEqual(["*.md"])

    const steps = await result.steps
    expect(steps).toHaveLength(2)
    expect(steps[0]?.toolCalls.map((c) => c.toolName)).toEqual(["Glob"])
    expect(steps[0]?.toolResults).toHaveLength(1)
    expect(steps[0]?.finishReason).toBe("tool-calls")
    expect(hasMarkup(steps[0]?.text ?? "")).toBe(false)
    // Step 1 = the malformed call + its retry; step 2 = the answer.
    expect(inner.doStreamCalls).toHaveLength(3)
    expect(events.map((e) => e.type)).toContain("recovery-started")
    expect(events.map((e) => e.type)).toContain("recovery-succeeded")
  })

  test("the retry holds the instruction in the leading system message and never the malformed response", async () => {
    const inner = scriptedModel([leak, call, answer])
    const { tools } = globTools()
    const result = streamText({
      model: wrap(inner),
      system: "You are a coding agent.",
      prompt: "List the markdown files.",
      tools,
      stopWhen: isStepCount(3),
    })
    await result.consumeStream()
    const [first, retry, next] = inner.doStreamCalls
    expect(systemText(first)).toBe("You are a coding agent.")
    const system = systemText(retry) ?? ""
    expect(system.startsWith("You are a coding agent.\n\n")).toBe(true)
    expect(isRetryRequest(system)).toBe(true)
    expect(retry?.prompt.filter((m) => m.role === "system")).toHaveLength(1)
    // The retry is the original request plus the instruction: same messages after the system one.
    expect(retry?.prompt.slice(1)).toEqual(first?.prompt.slice(1))
    expect(promptText(retry?.prompt ?? [])).not.toContain("<function=")
    expect(retry?.tools).toEqual(first?.tools)
    // The next step's history has the recovered call and its result, not the markup.
    expect(hasMarkup(promptText(next?.prompt ?? []))).toBe(false)
    expect(systemText(next)).toBe("You are a coding agent.")
  })

  test("without a system message the instruction becomes the first message", async () => {
    const inner = scriptedModel([leak, call])
    const { tools } = globTools()
    await streamText({ model: wrap(inner), prompt: "List the markdown files.", tools }).consumeStream()
    const retry = inner.doStreamCalls[1]
    expect(retry?.prompt[0]?.role).toBe("system")
    expect(retry?.prompt.slice(1)).toEqual(inner.doStreamCalls[0]?.prompt)
  })

  test('instructionPlacement "user" appends a user message', async () => {
    const inner = scriptedModel([leak, call])
    const { tools } = globTools()
    await streamText({
      model: wrap(inner, { instructionPlacement: "user", instruction: "Use a real tool call." }),
      system: "sys",
      prompt: "List the markdown files.",
      tools,
    }).consumeStream()
    const [first, retry] = inner.doStreamCalls
    expect(retry?.prompt).toEqual([
      ...(first?.prompt ?? []),
      { role: "user", content: [{ type: "text", text: "Use a real tool call." }] },
    ])
  })

  test("the spliced step is one well-formed response: unique text ids, one stream-start, one finish with summed usage", async () => {
    const inner = new MockLanguageModelV4({
      doStream: [
        streamReply({ ...leak, usage: usage(100, 40) }),
        streamReply({
          text: ["Sure."],
          calls: call.calls ?? [],
          usage: usage(120, 10),
          responseId: "resp-2",
        }),
      ],
    })
    const parts = await readAll(
      await wrap(inner).doStream({
        prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
        tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
      }),
    )
    const types = parts.map((p) => p.type)
    expect(types.filter((t) => t === "stream-start")).toHaveLength(1)
    expect(types[0]).toBe("stream-start")
    expect(types.filter((t) => t === "finish")).toHaveLength(1)
    expect(types.at(-1)).toBe("finish")
    const starts = parts.flatMap((p) => (p.type === "text-start" ? [p.id] : []))
    expect(new Set(starts).size).toBe(starts.length)
    expect(starts).toHaveLength(2)
    const finish = parts.at(-1)
    expect(finish?.type === "finish" && finish.usage.inputTokens.total).toBe(220)
    expect(finish?.type === "finish" && finish.usage.outputTokens.total).toBe(50)
    expect(finish?.type === "finish" && finish.finishReason.unified).toBe("tool-calls")
    // The last response-metadata is the retry's: it produced the content the step keeps.
    const metadata = parts.filter((p) => p.type === "response-metadata")
    expect(metadata.at(-1)).toMatchObject({ id: "resp-2" })
    expect(wellFormed(parts)).toEqual([])
  })

  test("a second malformed response ends the stream with the branded error and finish reason error", async () => {
    const inner = scriptedModel([leak, { text: chunk(QWEN_MARKUP, 5) }])
    const { tools, calls } = globTools()
    const errors: unknown[] = []
    const result = streamText({
      model: wrap(inner),
      prompt: "List the markdown files.",
      tools,
      stopWhen: isStepCount(3),
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    const parts = []
    for await (const part of result.fullStream) parts.push(part)
    const error = parts.find((p) => p.type === "error")
    expect(error?.type === "error" && isToolCallRecoveryError(error.error)).toBe(true)
    expect(error?.type === "error" && isToolCallRecoveryError(error.error) && error.error.code).toBe(
      "repeated-markup",
    )
    expect(errors).toHaveLength(1)
    expect(await result.finishReason).toBe("error")
    expect(calls).toEqual([])
    expect(inner.doStreamCalls).toHaveLength(2)
    expect(hasMarkup(await result.text)).toBe(false)
  })

  test("maxRecoveries: 0 turns a leak into the explicit error without a retry", async () => {
    const inner = scriptedModel([leak])
    const { tools } = globTools()
    const result = streamText({
      model: wrap(inner, { maxRecoveries: 0 }),
      prompt: "go",
      tools,
      onError: () => {},
    })
    const parts = []
    for await (const part of result.fullStream) parts.push(part)
    expect(parts.some((p) => p.type === "error" && isToolCallRecoveryError(p.error))).toBe(true)
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("persistFailed receives the malformed response before the retry; a failing hook ends with persist-failed", async () => {
    const failed: FailedResponse[] = []
    const ok = scriptedModel([leak, call])
    await streamText({
      model: wrap(ok, { persistFailed: (f) => void failed.push(f) }),
      prompt: "go",
      tools: globTools().tools,
    }).consumeStream()
    expect(failed.map((f) => [f.text, f.outcome, f.model, f.tools])).toEqual([
      [QWEN_LEAK, "retried", ok.modelId, Object.keys(globTools().tools)],
    ])

    const inner = scriptedModel([leak, call])
    const result = streamText({
      model: wrap(inner, {
        persistFailed: async () => {
          throw new Error("disk full")
        },
      }),
      prompt: "go",
      tools: globTools().tools,
      onError: () => {},
    })
    const parts = []
    for await (const part of result.fullStream) parts.push(part)
    const error = parts.find((p) => p.type === "error")
    expect(error?.type === "error" && isToolCallRecoveryError(error.error) && error.error.code).toBe(
      "persist-failed",
    )
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("text without markup passes through exactly as without the middleware", async () => {
    const reply: Reply = {
      text: ["Use `<tool_call>` tags", " like this:\n```xml\n<tool_call>\n```\nDone."],
      reasoning: ["hmm"],
    }
    const params: LanguageModelV4CallOptions = {
      prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }],
    }
    const plain = await readAll(await scriptedModel([reply]).doStream(params))
    const wrapped = await readAll(await wrap(scriptedModel([reply])).doStream(params))
    expect(wrapped).toEqual(plain)
  })

  test("a structured call passes through; markup beside it is withheld but never retried", async () => {
    const inner = scriptedModel([{ text: [QWEN_LEAK], calls: call.calls ?? [] }])
    const { tools, calls } = globTools()
    const result = streamText({ model: wrap(inner), prompt: "go", tools })
    expect(hasMarkup(await result.text)).toBe(false)
    expect(calls).toEqual(["*.md"])
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("a provider-executed tool's result beside markup is an action taken: never retried", async () => {
    // A result may come without its call in the same response (a deferred provider result): the
    // provider acted, and a retry would ask it to act again.
    const parts: Part[] = [
      { type: "tool-result", toolCallId: "ws_1", toolName: "web_search", result: { hits: 1 } },
      ...replyParts({ text: [QWEN_LEAK] }),
    ]
    const inner = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    })
    const { tools, calls } = globTools()
    const result = streamText({ model: wrap(inner), prompt: "go", tools })
    expect(hasMarkup(await result.text)).toBe(false)
    expect(calls).toEqual([])
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("provider errors pass through unchanged", async () => {
    const failure = new Error("connection refused")
    const inner = new MockLanguageModelV4({
      doStream: async () => {
        throw failure
      },
    })
    await expect(wrap(inner).doStream({ prompt: [] })).rejects.toBe(failure)
  })

  test("a provider error mid-stream, or from the retry request, fails the stream exactly as without the middleware", async () => {
    const params: LanguageModelV4CallOptions = {
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
      tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
    }
    const failure = new Error("socket hang up")
    const broken = () => ({
      stream: new ReadableStream<Part>({
        start(c) {
          for (const part of replyParts({ text: ["Hello "] }).slice(0, 4)) c.enqueue(part)
          c.error(failure)
        },
      }),
    })
    await expect(
      readAll(await new MockLanguageModelV4({ doStream: broken() }).doStream(params)),
    ).rejects.toBe(failure)
    await expect(
      readAll(await wrap(new MockLanguageModelV4({ doStream: broken() })).doStream(params)),
    ).rejects.toBe(failure)

    const rateLimited = new Error("429 Too Many Requests")
    const inner = new MockLanguageModelV4({
      doStream: async () => {
        if (inner.doStreamCalls.length === 1) return streamReply(leak)
        throw rateLimited
      },
    })
    await expect(readAll(await wrap(inner).doStream(params))).rejects.toBe(rateLimited)
  })

  test("an error part after the markup (malformed SSE JSON, a stream cut without a finish) is final: passed through, no retry", async () => {
    const params: LanguageModelV4CallOptions = {
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
      tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
    }
    // What @ai-sdk/openai-compatible emits for both: an `error` part, then a finish with reason error.
    const failure = new Error("Response stream ended without a finish reason.")
    const parts = replyParts(leak).slice(0, -1)
    const errorFinish: Part = {
      type: "finish",
      finishReason: { unified: "error", raw: undefined },
      usage: usage(10, 5),
    }
    const inner = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([...parts, { type: "error", error: failure }, errorFinish]),
      }),
    })
    const events: RecoveryEvent[] = []
    const out = await readAll(await wrap(inner, { onEvent: (e) => events.push(e) }).doStream(params))
    expect(inner.doStreamCalls).toHaveLength(1)
    expect(out.filter((p) => p.type === "error")).toEqual([{ type: "error", error: failure }])
    expect(out.at(-1)).toEqual(errorFinish)
    expect(events.some((e) => e.type === "recovery-started")).toBe(false)
    expect(events).toContainEqual(
      expect.objectContaining({ type: "markup-detected", reason: "provider-error" }),
    )
  })

  test("an abort during the first response stops the turn: no retry starts", async () => {
    const controller = new AbortController()
    const inner = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<Part>({
          start(c) {
            for (const part of replyParts(leak).slice(0, 6)) c.enqueue(part)
            abortSignal?.addEventListener("abort", () => c.error(abortSignal.reason))
          },
        }),
      }),
    })
    let aborted = false
    const result = streamText({
      model: wrap(inner),
      prompt: "go",
      tools: globTools().tools,
      abortSignal: controller.signal,
      onAbort: () => {
        aborted = true
      },
    })
    const reader = result.textStream[Symbol.asyncIterator]()
    await reader.next()
    controller.abort()
    while (!(await reader.next()).done) {}
    expect(aborted).toBe(true)
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("an abort during the retry aborts the retry request", async () => {
    const controller = new AbortController()
    let retrySignal: AbortSignal | undefined
    const inner = new MockLanguageModelV4({
      doStream: async (options) => {
        if (inner.doStreamCalls.length === 1) return streamReply(leak)
        retrySignal = options.abortSignal
        return {
          stream: new ReadableStream<Part>({
            start(c) {
              c.enqueue({ type: "stream-start", warnings: [] })
              // Never finishes unless aborted.
              options.abortSignal?.addEventListener("abort", () => c.error(options.abortSignal?.reason))
              controller.abort()
            },
          }),
        }
      },
    })
    const result = streamText({
      model: wrap(inner),
      prompt: "go",
      tools: globTools().tools,
      abortSignal: controller.signal,
    })
    await result.consumeStream()
    expect(inner.doStreamCalls).toHaveLength(2)
    expect(retrySignal?.aborted).toBe(true)
  })

  test("a consumer that stops reading stops the turn at once, even while the provider stalls", async () => {
    let cancelled = false
    const inner = new MockLanguageModelV4({
      doStream: async () => ({
        // A text block that never ends: the provider stalls after its first delta.
        stream: new ReadableStream<Part>({
          start(c) {
            for (const part of replyParts({ text: [QWEN_PROSE] }).slice(0, -2)) c.enqueue(part)
          },
          cancel() {
            cancelled = true
          },
        }),
      }),
    })
    const result = await wrap(inner).doStream({
      prompt: [],
      tools: [{ type: "function", name: "Glob", inputSchema: {} }],
    })
    const reader = result.stream.getReader()
    while (true) {
      const { value } = await reader.read()
      if (value?.type === "text-delta") break
    }
    await within(1000, reader.cancel())
    expect(cancelled).toBe(true)
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("a consumer that stops reading during the retry request aborts that request", async () => {
    let retrySignal: AbortSignal | undefined
    const inner = new MockLanguageModelV4({
      doStream: async (options) => {
        if (inner.doStreamCalls.length === 1) return streamReply(leak)
        retrySignal = options.abortSignal
        // The retry's response headers never come, unless the request is aborted.
        return new Promise((_, reject) =>
          options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal?.reason)),
        )
      },
    })
    const result = await wrap(inner).doStream({
      prompt: [],
      tools: [{ type: "function", name: "Glob", inputSchema: {} }],
    })
    const reader = result.stream.getReader()
    // Keep reading in the background until the retry request is pending, then cancel.
    const reading = (async () => {
      while (!(await reader.read()).done) {}
    })()
    for (let i = 0; inner.doStreamCalls.length < 2; i++) {
      if (i > 500) throw new Error("no retry started")
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    await within(1000, reader.cancel())
    await within(1000, reading)
    expect(retrySignal?.aborted).toBe(true)
    expect(inner.doStreamCalls).toHaveLength(2)
  })
})

/** Fails if `promise` does not settle within `ms`. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe("generateText", () => {
  test("recovers: the tool runs once and the text holds no markup", async () => {
    const inner = scriptedModel([leak, call, answer])
    const { tools, calls } = globTools()
    const result = await generateText({
      model: wrap(inner),
      system: "sys",
      prompt: "List the markdown files.",
      tools,
      stopWhen: isStepCount(3),
    })
    expect(calls).toEqual(["*.md"])
    expect(result.steps).toHaveLength(2)
    expect(result.text).toBe("Found README.md and DESIGN.md.")
    // Non-streaming: the malformed response, prose included, is absent from the result and
    // from the history (it went to persistFailed instead).
    expect(result.steps[0]?.text).toBe("")
    expect(JSON.stringify(result.response.messages)).not.toContain(QWEN_PROSE.trim())
    expect(hasMarkup(JSON.stringify(result.steps.map((s) => s.content)))).toBe(false)
    expect(inner.doGenerateCalls).toHaveLength(3)
    expect(systemText(inner.doGenerateCalls[1])?.startsWith("sys\n\n")).toBe(true)
    expect(isRetryRequest(systemText(inner.doGenerateCalls[1]))).toBe(true)
    expect(result.steps[0]?.usage.inputTokens).toBe(20)
  })

  test("a second malformed response rejects with the branded error", async () => {
    const inner = scriptedModel([leak, leak])
    const { tools, calls } = globTools()
    const error = await generateText({ model: wrap(inner), prompt: "go", tools }).catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(calls).toEqual([])
  })

  test("an abort before the retry rejects and sends no retry", async () => {
    const controller = new AbortController()
    const inner = scriptedModel([leak, call])
    const error = await generateText({
      model: wrap(inner, { persistFailed: () => controller.abort() }),
      prompt: "go",
      tools: globTools().tools,
      abortSignal: controller.signal,
    }).catch((e: unknown) => e)
    expect(error).toBeDefined()
    expect(inner.doGenerateCalls).toHaveLength(1)
  })
})

describe("the AI SDK's own behaviour is kept", () => {
  test('toolChoice "required": a recovered step raises no ToolChoiceViolationError', async () => {
    const { tools } = globTools()
    const bare = streamText({
      model: scriptedModel([leak]),
      prompt: "go",
      tools,
      toolChoice: "required",
      onError: () => {},
    })
    const bareParts = []
    for await (const part of bare.fullStream) bareParts.push(part)
    expect(bareParts.some((p) => p.type === "error" && ToolChoiceViolationError.isInstance(p.error))).toBe(
      true,
    )

    const inner = scriptedModel([leak, call])
    const errors: unknown[] = []
    const result = streamText({
      model: wrap(inner),
      prompt: "go",
      tools,
      toolChoice: "required",
      onError: ({ error }) => void errors.push(error),
    })
    await result.consumeStream()
    expect(errors).toEqual([])
    expect((await result.toolCalls).map((c) => c.toolName)).toEqual(["Glob"])
    expect(inner.doStreamCalls[1]?.toolChoice).toEqual({ type: "required" })

    const generated = await generateText({
      model: wrap(scriptedModel([leak, call])),
      prompt: "go",
      tools,
      toolChoice: "required",
    })
    expect(generated.toolCalls.map((c) => c.toolName)).toEqual(["Glob"])
  })

  test("activeTools: only the tools offered in the step count", async () => {
    const { tools } = globTools()
    // Glob is not active: the leaked call names a tool not offered in this step, so it is not
    // recoverable and nothing is retried or executed; its closing envelope token marks it as a
    // call all the same, so it is withheld and reported (reason not-offered), never shown.
    const inner = scriptedModel([leak])
    const events: RecoveryEvent[] = []
    const result = streamText({
      model: wrap(inner, { onEvent: (e) => events.push(e) }),
      prompt: "go",
      tools,
      activeTools: ["Read", "Bash"],
    })
    const bare = streamText({
      model: scriptedModel([leak]),
      prompt: "go",
      tools,
      activeTools: ["Read", "Bash"],
    })
    const shown = await result.text
    expect(await bare.text).toContain("</tool_call>")
    expect(shown).not.toContain("<function=")
    expect(shown).not.toContain("</tool_call>")
    expect((await bare.text).startsWith(shown.trimEnd())).toBe(true)
    expect(
      events.some(
        (e) =>
          e.type === "markup-detected" &&
          !e.recoverable &&
          e.reason === "not-offered" &&
          e.markup.toolName === "Glob",
      ),
    ).toBe(true)
    expect(inner.doStreamCalls).toHaveLength(1)
    expect(inner.doStreamCalls[0]?.tools?.map((t) => t.name)).toEqual(["Read", "Bash"])
    expect(events.some((e) => e.type === "recovery-started")).toBe(false)

    const active = scriptedModel([leak, call])
    await streamText({ model: wrap(active), prompt: "go", tools, activeTools: ["Glob"] }).consumeStream()
    expect(active.doStreamCalls).toHaveLength(2)
    expect(active.doStreamCalls[1]?.tools?.map((t) => t.name)).toEqual(["Glob"])
  })

  test("prepareStep: the tools of each step decide", async () => {
    const { tools, calls } = globTools()
    // Step 1 offers Glob (recovered); step 2 offers only Read, so the same leak is not retried.
    const inner = scriptedModel([leak, call, leak])
    const result = streamText({
      model: wrap(inner),
      prompt: "go",
      tools,
      stopWhen: isStepCount(2),
      prepareStep: ({ stepNumber }) => ({ activeTools: stepNumber === 0 ? ["Glob"] : ["Read"] }),
    })
    await result.consumeStream()
    expect(calls).toEqual(["*.md"])
    expect(inner.doStreamCalls).toHaveLength(3)
    expect(inner.doStreamCalls[2]?.tools?.map((t) => t.name)).toEqual(["Read"])
  })

  test('no tools, or toolChoice "none": passed through untouched, with a recovery-skipped event', async () => {
    const events: RecoveryEvent[] = []
    const params: LanguageModelV4CallOptions = {
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    }
    const tools = [{ type: "function" as const, name: "Glob", inputSchema: { type: "object" as const } }]
    for (const options of [params, { ...params, tools, toolChoice: { type: "none" as const } }]) {
      const plain = await readAll(await scriptedModel([leak]).doStream(options))
      const inner = scriptedModel([leak, call])
      const wrapped = await readAll(await wrap(inner, { onEvent: (e) => events.push(e) }).doStream(options))
      expect(wrapped).toEqual(plain)
      expect(inner.doStreamCalls).toHaveLength(1)
    }
    expect(events).toEqual([
      { type: "recovery-skipped", reason: "no-tools" },
      { type: "recovery-skipped", reason: "tool-choice-none" },
    ])
  })

  test("a structured call to an unknown tool still becomes a tool error (NoSuchToolError), nothing executed", async () => {
    const unknown: Reply = { calls: [{ toolName: "rm_rf", input: { path: "/" } }] }
    const { tools, calls } = globTools()
    const events: RecoveryEvent[] = []
    const run = async (model: LanguageModelV4) => {
      const result = streamText({ model, prompt: "go", tools })
      const parts = []
      for await (const part of result.fullStream) parts.push(part)
      return parts
    }
    const bare = await run(scriptedModel([unknown]))
    const inner = scriptedModel([unknown])
    const wrapped = await run(wrap(inner, { onEvent: (e) => events.push(e) }))
    const invalid = wrapped.find((p) => p.type === "tool-call")
    expect(
      invalid?.type === "tool-call" && invalid.invalid === true && NoSuchToolError.isInstance(invalid.error),
    ).toBe(true)
    const toolErrors = wrapped.filter((p) => p.type === "tool-error")
    expect(toolErrors).toHaveLength(1)
    expect(toolErrors[0]?.type === "tool-error" && String(toolErrors[0].error)).toMatch(/^AI_NoSuchToolError/)
    // Timings aside, the same parts as without the middleware.
    const shape = (parts: typeof wrapped) =>
      JSON.stringify(
        parts.flatMap((p): unknown[] =>
          p.type === "tool-call" || p.type === "tool-error"
            ? [p]
            : p.type === "finish-step"
              ? [{ ...p, performance: undefined }]
              : [],
        ),
      )
    expect(shape(wrapped)).toBe(shape(bare))
    expect(calls).toEqual([])
    expect(inner.doStreamCalls).toHaveLength(1)
    expect(events).toContainEqual({ type: "unknown-tool-call", toolName: "rm_rf", params: '{"path":"/"}' })

    const generated = await generateText({ model: wrap(scriptedModel([unknown])), prompt: "go", tools })
    expect(
      generated.content.some(
        (c) => c.type === "tool-call" && c.invalid === true && NoSuchToolError.isInstance(c.error),
      ),
    ).toBe(true)
    expect(generated.content.some((c) => c.type === "tool-error")).toBe(true)
  })
})

describe("with extractReasoningMiddleware", () => {
  const middleware = () => [toolCallRecoveryMiddleware(), extractReasoningMiddleware({ tagName: "think" })]

  test("a call rehearsed in reasoning, followed by an answer, is not retried and stays off the screen", async () => {
    const text = chunk(
      "<think>I could call <tool_call>\n<function=Glob>\n<parameter=pattern>*.md</parameter>\n</function>\n</tool_call> but I know the answer.</think>The files are README.md and DESIGN.md.",
      9,
    )
    const inner = scriptedModel([{ text }])
    const result = streamText({
      model: wrapLanguageModel({ model: inner, middleware: middleware() }),
      prompt: "go",
      tools: globTools().tools,
    })
    expect(await result.text).toBe("The files are README.md and DESIGN.md.")
    expect(hasMarkup((await result.reasoningText) ?? "")).toBe(false)
    expect(await result.reasoningText).toMatch(/^I could call /)
    expect(inner.doStreamCalls).toHaveLength(1)
  })

  test("a call made inside reasoning with no answer after it (Kimi, MiniMax) is recovered", async () => {
    const text = chunk(
      "<think>Let me list them.\n<tool_call>\n<function=Glob>\n<parameter=pattern>*.md</parameter>\n</function>\n</tool_call></think>",
      6,
    )
    const inner = scriptedModel([{ text }, call])
    const { tools, calls } = globTools()
    const result = streamText({
      model: wrapLanguageModel({ model: inner, middleware: middleware() }),
      prompt: "go",
      tools,
    })
    await result.consumeStream()
    expect(inner.doStreamCalls).toHaveLength(2)
    expect(calls).toEqual(["*.md"])
    expect(hasMarkup((await result.reasoningText) ?? "")).toBe(false)
    // The retry also went through extractReasoningMiddleware (it wraps the model inside ours).
    expect(isRetryRequest(systemText(inner.doStreamCalls[1]))).toBe(true)
  })
})
