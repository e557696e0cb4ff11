/**
 * The turn contract through the real `ai` (`streamText` / `generateText` with `stopWhen` and
 * tool approvals) over real HTTP: `@ai-sdk/openai-compatible` against the replay server.
 * One recovery per user turn, provider errors final, never an action repeated.
 */
import { isToolCallRecoveryError, type RecoveryEvent, type RecoveryOptions } from "@tool-rescue/recovery"
import type { ReplayStep } from "@tool-rescue/testing"
import {
  generateText,
  isStepCount,
  type LanguageModelMiddleware,
  type ModelMessage,
  streamText,
  tool,
} from "ai"
import { describe, expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import { replayChatModels } from "./support/replay-chat-models.ts"

const LEAK =
  "Deleting it.\n<function=delete_file>\n<parameter=path>\nold.log\n</parameter>\n</function>\n</tool_call>"
const LEAK_2 =
  'Now the other.\n<tool_call>\n{"name": "delete_file", "arguments": {"path": "b.log"}}\n</tool_call>'

const replayChatModel = replayChatModels()

async function serve(
  script: readonly ReplayStep[],
  options: RecoveryOptions = {},
  inner: readonly LanguageModelMiddleware[] = [],
) {
  const { server, model: replayed } = await replayChatModel(script)
  const events: RecoveryEvent[] = []
  const { wrapLanguageModel } = await import("ai")
  const model = wrapLanguageModel({
    model: replayed,
    middleware: [
      toolCallRecoveryMiddleware({ ...options, onEvent: (event) => events.push(event) }),
      ...inner,
    ],
  })
  const started = () => events.filter((event) => event.type === "recovery-started").length
  return { server, model, events, started }
}

/** A delete tool that records every execution; `approval` makes it ask the user first. */
function deleteTool(approval = false) {
  const executed: unknown[] = []
  const tools = {
    delete_file: tool({
      description: "Delete a file",
      inputSchema: z.object({ path: z.string() }),
      ...(approval ? { needsApproval: true } : {}),
      execute: async ({ path }) => {
        executed.push(path)
        return `deleted ${path}`
      },
    }),
  }
  return { tools, executed }
}

const call = (path: string, id?: string): ReplayStep => ({
  toolCalls: [
    { name: "delete_file", arguments: JSON.stringify({ path }), ...(id === undefined ? {} : { id }) },
  ],
})

describe("one recovery per user turn", () => {
  test("streamText with stopWhen: leaks at two steps end the turn with repeated-markup after one recovery request", async () => {
    const { server, model, started } = await serve([
      { content: LEAK, chunkSize: 5 },
      call("old.log"),
      { content: LEAK_2 },
      call("b.log"),
    ])
    const { tools, executed } = deleteTool()
    const result = streamText({
      model,
      prompt: "Clean up.",
      tools,
      stopWhen: isStepCount(6),
      maxRetries: 0,
      onError() {},
    })
    const errors: unknown[] = []
    for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error)
    expect(errors).toHaveLength(1)
    expect(isToolCallRecoveryError(errors[0]) && errors[0].code).toBe("repeated-markup")
    expect(started()).toBe(1)
    // leak, its retry, the second step's leak: no fourth request.
    expect(server.requests).toHaveLength(3)
    expect(executed).toEqual(["old.log"])
  })

  test("generateText with stopWhen: the same turn rejects with repeated-markup, one recovery request", async () => {
    const { server, model, started } = await serve([
      { content: LEAK },
      call("old.log"),
      { content: LEAK_2 },
      call("b.log"),
    ])
    const { tools, executed } = deleteTool()
    const error = await generateText({
      model,
      prompt: "Clean up.",
      tools,
      stopWhen: isStepCount(6),
      maxRetries: 0,
    }).catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(started()).toBe(1)
    expect(server.requests).toHaveLength(3)
    expect(executed).toEqual(["old.log"])
  })

  test('recoveryScope "step": each step has its own budget', async () => {
    const { server, model, started } = await serve(
      [{ content: LEAK }, call("old.log"), { content: LEAK_2 }, call("b.log"), { content: "Done." }],
      { recoveryScope: "step" },
    )
    const { tools, executed } = deleteTool()
    const result = await generateText({
      model,
      prompt: "Clean up.",
      tools,
      stopWhen: isStepCount(6),
      maxRetries: 0,
    })
    expect(result.text).toBe("Done.")
    expect(started()).toBe(2)
    expect(server.requests).toHaveLength(5)
    expect(executed).toEqual(["old.log", "b.log"])
  })

  test("a new user message starts a new turn with a fresh budget", async () => {
    const { model, started } = await serve([
      { content: LEAK },
      call("old.log"),
      { content: "Done." },
      { content: LEAK_2 },
      call("b.log"),
      { content: "Done too." },
    ])
    const { tools, executed } = deleteTool()
    const messages: ModelMessage[] = [{ role: "user", content: "Delete old.log." }]
    const first = await generateText({ model, messages, tools, stopWhen: isStepCount(4), maxRetries: 0 })
    messages.push(...first.response.messages, { role: "user", content: "And b.log." })
    const second = await generateText({ model, messages, tools, stopWhen: isStepCount(4), maxRetries: 0 })
    expect(second.text).toBe("Done too.")
    expect(started()).toBe(2)
    expect(executed).toEqual(["old.log", "b.log"])
  })

  for (const stream of [true, false]) {
    test(`${stream ? "streamText" : "generateText"}: usage of the recovered step is the sum of both attempts`, async () => {
      const { model } = await serve([
        { content: LEAK, usage: { inputTokens: 100, outputTokens: 30 } },
        { ...call("old.log"), usage: { inputTokens: 120, outputTokens: 10 } },
        { content: "Done.", usage: { inputTokens: 150, outputTokens: 2 } },
      ])
      const { tools } = deleteTool()
      const options = { model, prompt: "Clean up.", tools, stopWhen: isStepCount(3), maxRetries: 0 } as const
      const steps = stream ? await streamText(options).steps : (await generateText(options)).steps
      expect(steps.map((step) => [step.usage.inputTokens, step.usage.outputTokens])).toEqual([
        [220, 40],
        [150, 2],
      ])
    })
  }
})

describe("provider errors are final", () => {
  for (const interrupt of [
    { kind: "error", afterChunks: 40 },
    { kind: "drop", afterChunks: 40 },
    { kind: "end", afterChunks: 40 },
  ] as const) {
    test(`${interrupt.kind} after the markup: passed through, never retried`, async () => {
      const { server, model, events } = await serve([
        { content: LEAK, chunkSize: 2, interrupt },
        call("old.log"),
      ])
      const { tools, executed } = deleteTool()
      const result = streamText({ model, prompt: "Clean up.", tools, maxRetries: 0, onError() {} })
      const errors: unknown[] = []
      let shown = ""
      try {
        for await (const part of result.fullStream) {
          if (part.type === "error") errors.push(part.error)
          if (part.type === "text-delta") shown += part.text
        }
      } catch (error) {
        // A cut connection errors the stream itself, exactly as without the middleware.
        errors.push(error)
      }
      expect(server.requests).toHaveLength(1)
      expect(executed).toEqual([])
      expect(errors.length).toBeGreaterThanOrEqual(1)
      expect(errors.some(isToolCallRecoveryError)).toBe(false)
      expect(shown).toBe("Deleting it.\n")
      expect(events.some((e) => e.type === "recovery-started")).toBe(false)
      // An error chunk, or a clean end without a finish reason (the provider reports an error
      // part for it), ends the attempt as a failed one: its markup is reported as such. A reset
      // connection errors the attempt before any judgement.
      const reasons = events.flatMap((e) => (e.type === "markup-detected" ? [e.reason] : []))
      expect(reasons).toEqual(interrupt.kind === "drop" ? [] : ["provider-error"])
    })
  }

  test("a provider stream that closes with neither a finish nor an error part is cut short: never retried", async () => {
    // A provider that just closes its stream when the connection ends early (no `finish`, no
    // `error` part), as some community providers do: emulated under the middleware.
    const closesQuietly: LanguageModelMiddleware = {
      specificationVersion: "v4",
      wrapStream: async ({ doStream }) => {
        const result = await doStream()
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type !== "finish" && part.type !== "error") controller.enqueue(part)
            },
          }),
        )
        return { ...result, stream }
      },
    }
    const { server, model, events } = await serve(
      [{ content: LEAK, chunkSize: 2, interrupt: { kind: "end", afterChunks: 40 } }, call("old.log")],
      {},
      [closesQuietly],
    )
    const { tools, executed } = deleteTool()
    const result = streamText({ model, prompt: "Clean up.", tools, maxRetries: 0, onError() {} })
    let shown = ""
    for await (const part of result.fullStream) if (part.type === "text-delta") shown += part.text
    expect(server.requests).toHaveLength(1)
    expect(executed).toEqual([])
    // The markup held at the cut is neither shown nor retried; the AI SDK records the partial step
    // as it does without the middleware (finish reason "other": no finish chunk came).
    expect(shown).toBe("Deleting it.\n")
    expect(await result.finishReason).toBe("other")
    expect(events.some((e) => e.type === "recovery-started")).toBe(false)
    const detected = events.flatMap((e) => (e.type === "markup-detected" ? [[e.reason, e.text]] : []))
    expect(detected).toEqual([["provider-error", LEAK.slice("Deleting it.\n".length, 80)]])
  })
})

describe("a retry that fails at the provider is final under the SDK's own retries", () => {
  // The AI SDK retries a rejected `doGenerate` whose error is retryable (`maxRetries`, default 2):
  // without care, the retry's HTTP 500 re-ran the whole wrapped call (a fresh round 0, a fresh
  // budget): three recoveries and six requests in one generateText.
  for (const stream of [false, true]) {
    test(`${stream ? "streamText" : "generateText"}, default maxRetries: two requests, one recovery, the provider's error`, async () => {
      const failed = { httpError: { status: 503, message: "overloaded", headers: { "retry-after-ms": "0" } } }
      const leak: ReplayStep = { content: LEAK }
      const { server, model, started } = await serve([leak, failed, leak, failed, leak, failed])
      const { tools, executed } = deleteTool()
      const options = { model, prompt: "Clean up.", tools } as const
      const errors: unknown[] = []
      if (stream) {
        const result = streamText({ ...options, onError() {} })
        try {
          for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error)
        } catch (error) {
          // The retry's request rejected inside the step's stream: it errors the stream itself.
          errors.push(error)
        }
      } else errors.push(await generateText(options).catch((e: unknown) => e))
      expect(errors).toHaveLength(1)
      const error = errors[0]
      expect(server.requests).toHaveLength(2)
      expect(started()).toBe(1)
      expect(executed).toEqual([])
      expect(isToolCallRecoveryError(error)).toBe(false)
      expect(String(error)).toContain("overloaded")
    })
  }
})

describe("skip rules", () => {
  test('toolChoice "none": no retry, one request, a recovery-skipped event', async () => {
    const { server, model, events } = await serve([{ content: LEAK }, call("old.log")])
    const { tools, executed } = deleteTool()
    await generateText({ model, prompt: "Clean up.", tools, toolChoice: "none", maxRetries: 0 })
    expect(server.requests).toHaveLength(1)
    expect(executed).toEqual([])
    expect(events).toEqual([{ type: "recovery-skipped", reason: "tool-choice-none" }])
  })
})

describe("never repeat an action (tool approvals)", () => {
  async function approvalTurn(approved: boolean, stream: boolean) {
    const { server, model, started } = await serve([
      call("old.log", "call_del"),
      { content: LEAK_2 },
      { content: "Done." },
    ])
    const { tools, executed } = deleteTool(true)
    const messages: ModelMessage[] = [{ role: "user", content: "Delete old.log." }]
    const first = await generateText({ model, messages, tools, maxRetries: 0 })
    const request = first.content.find((part) => part.type === "tool-approval-request")
    expect(request).toBeDefined()
    messages.push(...first.response.messages, {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: request?.approvalId ?? "", approved }],
    })
    const options = { model, messages, tools, stopWhen: isStepCount(3), maxRetries: 0 } as const
    const second = stream ? streamText(options) : await generateText(options)
    const text = await second.text
    const response = await second.response
    return { server, executed, started, text, response }
  }

  for (const stream of [false, true]) {
    const api = stream ? "streamText" : "generateText"
    test(`${api}: approved + leak → the action ran once, one result`, async () => {
      const { server, executed, started, text, response } = await approvalTurn(true, stream)
      // Streaming keeps what was shown before the markup; generateText keeps the corrected response only.
      expect(text).toBe(stream ? "Now the other.\nDone." : "Done.")
      expect(started()).toBe(1)
      expect(executed).toEqual(["old.log"])
      // The retry request carries the one result the first attempt's step had.
      const retry = server.requests[2]?.body?.messages ?? []
      expect(retry.filter((m) => m.role === "tool")).toHaveLength(1)
      expect(JSON.stringify(retry)).not.toContain("b.log")
      const results = response.messages.flatMap((m) =>
        m.role === "tool" && Array.isArray(m.content)
          ? m.content.filter((p) => p.type === "tool-result")
          : [],
      )
      expect(results.length).toBeLessThanOrEqual(1)
    })

    test(`${api}: denied + leak → one denial`, async () => {
      const { server, executed, started, text } = await approvalTurn(false, stream)
      expect(text).toBe(stream ? "Now the other.\nDone." : "Done.")
      expect(started()).toBe(1)
      expect(executed).toEqual([])
      for (const index of [1, 2]) {
        const tools = (server.requests[index]?.body?.messages ?? []).filter((m) => m.role === "tool")
        expect(tools).toHaveLength(1)
      }
    })
  }
})

describe("a consumer that stops reading (break)", () => {
  // The leak streams slowly, so the consumer's first delta arrives long before its markup ends.
  const slowLeak: ReplayStep = { content: LEAK, chunkSize: 3, chunkDelayMs: 25 }

  test("the AI SDK keeps reading the step after a break: the retry is still sent and its call runs", async () => {
    const { server, model } = await serve([slowLeak, call("old.log")])
    const { tools, executed } = deleteTool()
    const result = streamText({ model, prompt: "Clean up.", tools, maxRetries: 0 })
    for await (const _ of result.textStream) break
    // `streamText` drains the model stream so that `text`, `steps` and `onFinish` still resolve.
    expect(await result.finishReason).toBe("tool-calls")
    expect(server.requests).toHaveLength(2)
    expect(executed).toEqual(["old.log"])
  })

  test("abortSignal is the way to stop: aborted after a break, no retry starts and nothing runs", async () => {
    const { server, model, started } = await serve([slowLeak, call("old.log")])
    const { tools, executed } = deleteTool()
    const controller = new AbortController()
    let aborted = false
    const result = streamText({
      model,
      prompt: "Clean up.",
      tools,
      maxRetries: 0,
      abortSignal: controller.signal,
      onAbort: () => {
        aborted = true
      },
    })
    for await (const _ of result.textStream) break
    controller.abort()
    await result.consumeStream()
    expect(aborted).toBe(true)
    expect(server.requests).toHaveLength(1)
    expect(started()).toBe(0)
    expect(executed).toEqual([])
  })
})
