import { type AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import { type FailedResponse, isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { describe, expect, it } from "vitest"
import { withToolCallRecovery } from "../src/index.ts"
import { chatOpenAI, collect, functionTool, harness, leak, replay, sentText } from "./support/harness.ts"

const sample = leak("L8")
/** The model the harness's `ChatOpenAI` names. */
const MODEL = "qwen3-coder"
const tools = sample.tools.map(functionTool)
const messages = [new SystemMessage("You are a coding agent."), new HumanMessage("Where is BaseService?")]
const call = { name: "GrepTool", arguments: '{"pattern":"class BaseService"}', id: "call_retry" }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))

describe("ChatOpenAI.invoke", () => {
  it("recovers a real leak: the result is the retry's structured call, the malformed response is absent", async () => {
    const { model, server, events } = await harness([
      { content: sample.text, usage: { inputTokens: 40, outputTokens: 30 } },
      { toolCalls: [call], usage: { inputTokens: 50, outputTokens: 9 } },
    ])
    const reply = await model.bindTools(tools).invoke(messages)

    expect(reply.tool_calls).toMatchObject([
      { name: "GrepTool", args: { pattern: "class BaseService" }, id: "call_retry" },
    ])
    expect(reply.content).toBe("")
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 90, output_tokens: 39, total_tokens: 129 })
    expect(server.requests).toHaveLength(2)
    const retry = server.requests[1]!.body!
    expect(retry.messages?.[0]?.role).toBe("system")
    expect(String(retry.messages?.[0]?.content).startsWith("You are a coding agent.\n\n")).toBe(true)
    expect(isRetryRequest(retry.messages?.[0]?.content)).toBe(true)
    expect(retry.messages).toHaveLength(2)
    expect(sentText(retry)).not.toContain("<function=")
    expect(retry.tools).toEqual(server.requests[0]!.body!.tools)
    expect(events.map((event) => event.type)).toEqual([
      "markup-detected",
      "recovery-started",
      "recovery-succeeded",
    ])
  })

  it("places the instruction in a final user message with instructionPlacement: user", async () => {
    const { model, server } = await harness([{ content: sample.text }, { toolCalls: [call] }], {
      instructionPlacement: "user",
    })
    await model.bindTools(tools).invoke(messages)
    const retry = server.requests[1]!.body!
    expect(retry.messages).toHaveLength(3)
    expect(retry.messages?.[0]?.content).toBe("You are a coding agent.")
    expect(retry.messages?.[2]).toMatchObject({ role: "user" })
    expect(isRetryRequest(retry.messages?.[2]?.content)).toBe(true)
  })

  it("rejects a second leak in the turn with repeated-markup; persistFailed gets both, with tools, model and outcome", async () => {
    const failed: FailedResponse[] = []
    const { model, server, events } = await harness([{ content: sample.text }, { content: sample.text }], {
      persistFailed: (response) => {
        failed.push(response)
      },
    })
    const error = await model
      .bindTools(tools)
      .invoke(messages)
      .catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(error).toMatchObject({ code: "repeated-markup", rounds: 2 })
    expect(failed.map((f) => [f.text, f.outcome, f.round, f.model, f.tools])).toEqual([
      [sample.text, "retried", 0, MODEL, sample.tools],
      [sample.text, "repeated", 1, MODEL, sample.tools],
    ])
    expect(server.requests).toHaveLength(2)
    expect(events.at(-1)).toMatchObject({ type: "recovery-failed", round: 1 })
  })

  it("one budget per user turn: the recovered reply carries the mark, so a leak after its tool result is final", async () => {
    const { model, server } = await harness([
      { content: sample.text },
      { toolCalls: [call] },
      { content: sample.text },
    ])
    const bound = model.bindTools(tools)
    const reply = await bound.invoke(messages)
    expect(reply.response_metadata).toMatchObject({ toolRescue: { recoveries: 1 } })
    const result = new ToolMessage({ content: "services/base.py:3", tool_call_id: "call_retry" })
    const error = await bound.invoke([...messages, reply, result]).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "repeated-markup" })
    expect(server.requests).toHaveLength(3)
    // The mark is never sent to the provider.
    expect(sentText(server.requests[2]!.body)).not.toContain("toolRescue")
  })

  it("passes a fenced example through untouched, with no retry", async () => {
    const text = `Here is how a call looks:\n\n\`\`\`xml\n${sample.text.slice(safePrefix.length)}\n\`\`\`\n`
    const { model, server, events } = await harness([{ content: text }])
    const reply = await model.bindTools(tools).invoke(messages)
    expect(reply.content).toBe(text)
    expect(server.requests).toHaveLength(1)
    expect(events.filter((event) => event.type === "markup-detected")).toEqual([])
  })

  it("never retries a provider error", async () => {
    const { model, server } = await harness([
      { httpError: { status: 500, message: "boom" } },
      { toolCalls: [call] },
    ])
    await expect(model.bindTools(tools).invoke(messages)).rejects.toThrow(/boom/)
    expect(server.requests).toHaveLength(1)
  })

  it("skips calls without tools: the markup is shown as the model wrote it (recovery-skipped)", async () => {
    const { model, server, events } = await harness([{ content: sample.text }])
    const reply = await model.invoke(messages)
    expect(reply.content).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
    expect(events).toEqual([{ type: "recovery-skipped", reason: "no-tools" }])
  })

  it("recovers each input of batch on its own", async () => {
    const { model, server } = await harness((request) =>
      isRetryRequest(request.body) ? { toolCalls: [call] } : { content: sample.text },
    )
    const replies = await model.bindTools(tools).batch([messages, messages])
    expect(replies.map((reply) => reply.tool_calls?.[0]?.name)).toEqual(["GrepTool", "GrepTool"])
    expect(server.requests).toHaveLength(4)
  })

  it("keeps the model's class and leaves the model passed in unwrapped", async () => {
    const { model, raw, server } = await harness([{ content: sample.text }])
    expect(model).toBeInstanceOf(raw.constructor)
    expect(model).not.toBe(raw)
    const plain = await raw.bindTools(tools).invoke(messages)
    expect(plain.content).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
    expect(() => withToolCallRecovery({} as never)).toThrow(TypeError)
  })
})

describe("ChatOpenAI: reasoning, hooks, aborts", () => {
  const hermes = '<tool_call>\n{"name": "GrepTool", "arguments": {"pattern": "x"}}\n</tool_call>'

  it("recovers a call written in reasoning_content when no answer follows; the streamed reasoning never carries it", async () => {
    const { model, server } = await harness([
      { reasoning: `I will search.\n${hermes}`, chunkSize: 4 },
      { toolCalls: [call] },
    ])
    const chunks = await collect(await model.bindTools(tools).stream(messages))
    const reasoning = chunks.map((chunk) => String(chunk.additional_kwargs.reasoning_content ?? "")).join("")
    expect(reasoning).toBe("I will search.\n")
    expect(server.requests).toHaveLength(2)
  })

  it("leaves a call rehearsed in reasoning alone when an answer follows (reasoning: auto)", async () => {
    const { model, server } = await harness([
      { reasoning: `Maybe:\n${hermes}\nNo, I know it.`, content: "It is in base.py." },
    ])
    const reply = await model.bindTools(tools).invoke(messages)
    expect(reply.content).toBe("It is in base.py.")
    expect(server.requests).toHaveLength(1)
  })

  it("a call cut off by the output limit (finish_reason length) is retried asking for concise arguments; cut off again, truncated-call", async () => {
    const cut = sample.text.slice(0, sample.text.indexOf("</parameter>"))
    for (const api of ["stream", "invoke"] as const) {
      const { model, server } = await harness([
        { content: cut, finishReason: "length" },
        { content: cut, finishReason: "length" },
      ])
      const bound = model.bindTools(tools)
      const error = await (api === "stream"
        ? collect(await bound.stream(messages))
        : bound.invoke(messages)
      ).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: "truncated-call" })
      expect(server.requests).toHaveLength(2)
      expect(sentText(server.requests[1]!.body)).toMatch(/cut off by the output limit/)
    }
  })

  it("a persistFailed that rejects ends the turn with persist-failed, and no retry is sent", async () => {
    const { model, server } = await harness([{ content: sample.text }, { toolCalls: [call] }], {
      persistFailed: async () => {
        throw new Error("disk full")
      },
    })
    const error = await model
      .bindTools(tools)
      .invoke(messages)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "persist-failed", cause: { message: "disk full" } })
    expect(server.requests).toHaveLength(1)
  })

  it("invoke aborted through signal while the retry is pending rejects with aborted", async () => {
    const controller = new AbortController()
    const server = await replay((_request, turn) => {
      if (turn === 0) return { content: sample.text }
      // The retry reached the server: the user cancels while it is pending.
      controller.abort(new Error("user cancelled"))
      return { toolCalls: [call], latencyMs: 10_000 }
    })
    const model = withToolCallRecovery(chatOpenAI(server))
    const error = await model
      .bindTools(tools)
      .invoke(messages, { signal: controller.signal })
      .catch((e: unknown) => e)
    // Aborted during recovery: the typed error, with the signal's reason as its cause.
    expect(error).toMatchObject({ code: "aborted", cause: { message: "user cancelled" } })
    expect(server.requests).toHaveLength(2)
  })

  it("a structured call to a tool that was not offered is passed through and reported", async () => {
    const { model, server, events } = await harness([
      { toolCalls: [{ name: "rm_rf", arguments: '{"path":"/"}' }] },
    ])
    const reply = await model.bindTools(tools).invoke(messages)
    expect(reply.tool_calls?.map((c) => c.name)).toEqual(["rm_rf"])
    expect(server.requests).toHaveLength(1)
    expect(events).toContainEqual({ type: "unknown-tool-call", toolName: "rm_rf", params: '{"path":"/"}' })
  })
})

describe("ChatOpenAI({ streaming: true }).invoke", () => {
  it("reports only clean tokens to handleLLMNewToken, and returns the retry's call", async () => {
    const { model, server } = await harness(
      [{ content: sample.text, chunkSize: 3 }, { toolCalls: [call] }],
      {},
      { streaming: true },
    )
    const tokens: string[] = []
    const reply = await model
      .bindTools(tools)
      .invoke(messages, { callbacks: [{ handleLLMNewToken: (token: string) => void tokens.push(token) }] })
    expect(tokens.join("")).toBe(safePrefix)
    expect(reply.tool_calls).toMatchObject([{ name: "GrepTool" }])
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]!.body!.stream).toBe(true)
  })
})

describe("ChatOpenAI.stream", () => {
  it("the retry's text starts on a new line after the prose the first attempt showed", async () => {
    const { model, server } = await harness([
      { content: `I will run it.${sample.text.slice(safePrefix.length)}`, chunkSize: 4 },
      { content: "Calling the tool properly.", toolCalls: [call] },
    ])
    const chunks = await collect(await model.bindTools(tools).stream(messages))
    expect(chunks.map((chunk) => chunk.content).join("")).toBe("I will run it.\nCalling the tool properly.")
    expect(server.requests[1]?.rawBody).toContain("already saw the text before that call")
  })

  it("streams a leak in 1-character chunks: safe text shown, markup never, the retry spliced into the same message", async () => {
    const { model, server, events } = await harness([
      { content: sample.text, chunkSize: 1, usage: { inputTokens: 40, outputTokens: 30 } },
      { toolCalls: [call], usage: { inputTokens: 50, outputTokens: 9 } },
    ])
    const chunks = await collect(await model.bindTools(tools).stream(messages))
    const text = chunks.map((chunk) => chunk.content).join("")
    expect(text).toBe(safePrefix)
    let whole = chunks[0]!
    for (const chunk of chunks.slice(1)) whole = whole.concat(chunk)
    expect(whole.tool_calls).toMatchObject([{ name: "GrepTool", args: { pattern: "class BaseService" } }])
    expect(whole.usage_metadata).toMatchObject({ input_tokens: 90, output_tokens: 39, total_tokens: 129 })
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1)
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]!.body!.stream).toBe(true)
    expect(events.map((event) => event.type)).toEqual([
      "markup-detected",
      "recovery-started",
      "recovery-succeeded",
    ])
  })

  it("rejects a second leak while streaming, after showing only safe text", async () => {
    const { model } = await harness([
      { content: sample.text, chunkSize: 3 },
      { content: sample.text, chunkSize: 3 },
    ])
    const seen: AIMessageChunk[] = []
    const error = await (async () => {
      for await (const chunk of await model.bindTools(tools).stream(messages)) seen.push(chunk)
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "repeated-markup" })
    expect(seen.map((chunk) => chunk.content).join("")).toBe(safePrefix + safePrefix)
  })

  it("aborts through signal: the stream stops and no retry starts", async () => {
    const controller = new AbortController()
    const { model, server } = await harness([
      { content: sample.text, chunkSize: 4, chunkDelayMs: 20 },
      { toolCalls: [call] },
    ])
    const seen: string[] = []
    const error = await (async () => {
      for await (const chunk of await model
        .bindTools(tools)
        .stream(messages, { signal: controller.signal })) {
        seen.push(String(chunk.content))
        if (seen.length === 2) controller.abort(new Error("user cancelled"))
      }
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(server.requests).toHaveLength(1)
    expect(seen.join("")).not.toContain("<")
  })
})
