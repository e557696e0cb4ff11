/**
 * The turn contract through the real `openai` client over HTTP: one `runTools` is one user turn
 * (one recovery, then `repeated-markup`), usage is the sum of every attempt, a non-streaming
 * malformed response is absent from `runner.messages`, and provider errors are final.
 */
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import type { ReplayStep } from "@tool-rescue/testing"
import type OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { cleanUp, deleteTool } from "./support/delete-tool.ts"
import { harness, responsesTool } from "./support/harness.ts"

const LEAK =
  "Deleting it.\n<function=delete_file>\n<parameter=path>\nold.log\n</parameter>\n</function>\n</tool_call>"
const LEAK_2 =
  'Now the other.\n<tool_call>\n{"name": "delete_file", "arguments": {"path": "b.log"}}\n</tool_call>'
const user: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Clean up." }
const call = (path: string, id: string): ReplayStep => ({
  toolCalls: [{ name: "delete_file", arguments: JSON.stringify({ path }), id }],
})

const started = (events: readonly { type: string }[]) =>
  events.filter((e) => e.type === "recovery-started").length

describe("runTools: one recovery per user turn", () => {
  it.each([false, true])(
    "leaks at two steps (stream: %s) end the turn with repeated-markup after one recovery request",
    async (stream) => {
      const { client, server, events } = await harness([
        { content: LEAK, chunkSize: 4 },
        call("old.log", "call_1"),
        { content: LEAK_2 },
        call("b.log", "call_2"),
        { content: "Done." },
      ])
      const { tool, ran } = deleteTool()
      const runner = cleanUp(client, tool, stream)
      const error = await runner.finalContent().then(
        () => undefined,
        (e: unknown) => e,
      )
      const recoveryError = isToolCallRecoveryError(error) ? error : (error as Error | undefined)?.cause
      expect(isToolCallRecoveryError(recoveryError) && recoveryError.code).toBe("repeated-markup")
      expect(started(events)).toBe(1)
      // leak, its retry, the second step's leak: no fourth request.
      expect(server.requests).toHaveLength(3)
      expect(ran).toEqual(["old.log"])
    },
  )

  it('recoveryScope "step": each step of the runTools loop has its own budget', async () => {
    const { client, server, events } = await harness(
      [
        { content: LEAK },
        call("old.log", "call_1"),
        { content: LEAK_2 },
        call("b.log", "call_2"),
        { content: "Done." },
      ],
      { recoveryScope: "step" },
    )
    const { tool, ran } = deleteTool()
    const runner = client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
    expect(await runner.finalContent()).toBe("Done.")
    expect(started(events)).toBe(2)
    expect(server.requests).toHaveLength(5)
    expect(ran).toEqual(["old.log", "b.log"])
  })

  it("a new user message starts a new turn with a fresh budget", async () => {
    const { client, events } = await harness([
      { content: LEAK },
      call("old.log", "call_1"),
      { content: "Done." },
      { content: LEAK_2 },
      call("b.log", "call_2"),
      { content: "Done too." },
    ])
    const { tool, ran } = deleteTool()
    const first = client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
    await first.finalContent()
    const messages = [...first.messages, { role: "user" as const, content: "And b.log." }]
    const second = client.chat.completions.runTools({ model: "m", messages, tools: [tool] })
    expect(await second.finalContent()).toBe("Done too.")
    expect(started(events)).toBe(2)
    expect(ran).toEqual(["old.log", "b.log"])
  })
})

describe("call ids a server numbers per response (Kimi K2 through vLLM)", () => {
  it("a recovered call's id seen again in a later turn does not spend that turn's budget", async () => {
    const kimi = "functions.delete_file:0"
    const { client, events } = await harness([
      { content: LEAK },
      call("old.log", kimi),
      { content: "Done." },
      // The next turn: a structured call with the very same id, then a leak, which is recovered.
      call("a.log", kimi),
      { content: LEAK_2 },
      call("b.log", "functions.delete_file:1"),
      { content: "Done too." },
    ])
    const { tool, ran } = deleteTool()
    const first = client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
    await first.finalContent()
    const messages = [...first.messages, { role: "user" as const, content: "Now a.log and b.log." }]
    const second = client.chat.completions.runTools({ model: "m", messages, tools: [tool] })
    expect(await second.finalContent()).toBe("Done too.")
    expect(started(events)).toBe(2)
    expect(ran).toEqual(["old.log", "a.log", "b.log"])
  })
})

describe("Responses: one recovery per user turn", () => {
  it("a turn continued by previous_response_id with the recovered call's output: a second leak is repeated-markup, no retry", async () => {
    const { client, server, events } = await harness([
      { content: LEAK },
      call("old.log", "call_1"),
      { content: LEAK_2 },
    ])
    const tools = [responsesTool("delete_file")]
    const first = await client.responses.create({ model: "m", input: "Clean up.", tools })
    const called = first.output.find((item) => item.type === "function_call")
    expect(called?.type === "function_call" && called.call_id).toBe("call_1")
    const error = await client.responses
      .create({
        model: "m",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: "call_1", output: "deleted old.log" }],
        tools,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(started(events)).toBe(1)
    expect(server.requests).toHaveLength(3)
  })
})

describe("history and usage", () => {
  it("non-streaming runTools: the malformed response's prose is absent from runner.messages; usage is summed", async () => {
    const { client } = await harness([
      { content: LEAK, usage: { inputTokens: 100, outputTokens: 30 } },
      { ...call("old.log", "call_1"), usage: { inputTokens: 120, outputTokens: 10 } },
      { content: "Done.", usage: { inputTokens: 150, outputTokens: 2 } },
    ])
    const { tool } = deleteTool()
    const runner = client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
    expect(await runner.finalContent()).toBe("Done.")
    expect(JSON.stringify(runner.messages)).not.toContain("Deleting it.")
    expect(runner.messages.filter((m) => m.role === "tool")).toHaveLength(1)
    expect(await runner.totalUsage()).toMatchObject({
      prompt_tokens: 370,
      completion_tokens: 42,
      total_tokens: 412,
    })
  })

  it("streaming runTools keeps what was shown", async () => {
    const { client } = await harness([
      { content: LEAK, chunkSize: 3 },
      call("old.log", "call_1"),
      { content: "Done." },
    ])
    const { tool } = deleteTool()
    const runner = client.chat.completions.runTools({
      model: "m",
      messages: [user],
      tools: [tool],
      stream: true,
    })
    expect(await runner.finalContent()).toBe("Done.")
    const assistant = runner.messages.find((m) => m.role === "assistant")
    expect(assistant?.content).toBe("Deleting it.\n")
  })

  it("Responses, not streamed: usage is the sum of both attempts", async () => {
    const { client } = await harness([
      { content: LEAK, usage: { inputTokens: 100, outputTokens: 30 } },
      { ...call("old.log", "call_1"), usage: { inputTokens: 120, outputTokens: 10 } },
    ])
    const response = await client.responses.create({
      model: "m",
      input: "Clean up.",
      tools: [responsesTool("delete_file")],
    })
    expect(response.usage).toMatchObject({ input_tokens: 220, output_tokens: 40, total_tokens: 260 })
    expect(response.output.map((item) => item.type)).toEqual(["function_call"])
  })

  it("Responses, streamed: the completed response reports the sum of both attempts", async () => {
    const { client } = await harness([
      { content: LEAK, chunkSize: 5, usage: { inputTokens: 100, outputTokens: 30 } },
      { ...call("old.log", "call_1"), usage: { inputTokens: 120, outputTokens: 10 } },
    ])
    const final = await client.responses
      .stream({ model: "m", input: "Clean up.", tools: [responsesTool("delete_file")] })
      .finalResponse()
    expect(final.usage).toMatchObject({ input_tokens: 220, output_tokens: 40, total_tokens: 260 })
  })
})

describe("skip rules and provider errors", () => {
  it('tool_choice "none": no retry', async () => {
    const { client, server, events } = await harness([{ content: LEAK }, call("old.log", "call_1")])
    await client.chat.completions.create({
      model: "m",
      messages: [user],
      tools: [{ type: "function", function: { name: "delete_file", parameters: {} } }],
      tool_choice: "none",
    })
    expect(server.requests).toHaveLength(1)
    expect(events).toEqual([{ type: "recovery-skipped", reason: "tool-choice-none" }])
  })

  it("an error chunk after the markup is final: never retried", async () => {
    const { client, server, events } = await harness([
      { content: LEAK, chunkSize: 2, interrupt: { kind: "error", afterChunks: 40 } },
      call("old.log", "call_1"),
    ])
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [user],
      tools: [{ type: "function", function: { name: "delete_file", parameters: {} } }],
      stream: true,
    })
    const error = await (async () => {
      for await (const _ of stream) {
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeDefined()
    expect(isToolCallRecoveryError(error)).toBe(false)
    expect(server.requests).toHaveLength(1)
    expect(started(events)).toBe(0)
  })
})

describe("a stream that ends before its finish is cut short, never retried", () => {
  // The server closes cleanly after 40 chunks, inside the markup: no finish_reason, no [DONE],
  // no response.completed. The client ends quietly, so only recovery can tell.
  const cut: ReplayStep = { content: LEAK, chunkSize: 2, interrupt: { kind: "end", afterChunks: 40 } }
  const reasons = (events: readonly { type: string; reason?: string }[]) =>
    events.flatMap((e) => (e.type === "markup-detected" ? [e.reason] : []))

  it("chat completions", async () => {
    const { client, server, events } = await harness([cut, call("old.log", "call_1")])
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [user],
      tools: [{ type: "function", function: { name: "delete_file", parameters: {} } }],
      stream: true,
    })
    let shown = ""
    for await (const chunk of stream) shown += chunk.choices[0]?.delta.content ?? ""
    expect(shown).toBe("Deleting it.\n")
    expect(server.requests).toHaveLength(1)
    expect(started(events)).toBe(0)
    expect(reasons(events)).toEqual(["provider-error"])
  })

  it("responses", async () => {
    const { client, server, events } = await harness([cut, call("old.log", "call_1")])
    const stream = await client.responses.create({
      model: "m",
      input: "Clean up.",
      tools: [responsesTool("delete_file")],
      stream: true,
    })
    let shown = ""
    for await (const event of stream) if (event.type === "response.output_text.delta") shown += event.delta
    expect(shown).toBe("Deleting it.\n")
    expect(server.requests).toHaveLength(1)
    expect(started(events)).toBe(0)
    expect(reasons(events)).toEqual(["provider-error"])
  })
})
