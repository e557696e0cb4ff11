import {
  defaultInstruction,
  type NormalizedPart,
  type OutputPart,
  type RecoveryEvent,
  recoverToolCalls,
  ToolCallRecoveryError,
} from "@tool-rescue/recovery"
import { expect, test } from "vitest"
import { classifyToolCall, isRetryRequest, resolvePlacement, toolCallError } from "../src/adapter.ts"
import { unknownToolMessage } from "../src/unknown-tool-calls.ts"

// The README's examples, verbatim but for what collects their results, so they cannot rot.

test("README: how a turn runs", async () => {
  const seen: OutputPart[] = []
  const events: RecoveryEvent[] = []

  // Your adapter's model call, mapped to normalized parts.
  async function* callModel(
    instruction: string | undefined,
    _signal: AbortSignal,
  ): AsyncIterable<NormalizedPart<unknown>> {
    if (instruction === undefined) {
      // round 0: the original request. The model writes its call as text.
      yield { type: "text", text: "Let me read it.\n" }
      yield {
        type: "text",
        text: "<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>",
      }
    } else {
      // round ≥ 1: the original request WITHOUT the malformed response, plus `instruction`
      // (merged into the leading system message by default). Now the call is structured.
      yield { type: "tool-call", toolName: "read_file", params: '{"path":"src/a.ts"}', raw: "call_1" }
    }
    yield { type: "finish", raw: { finishReason: "stop" } }
  }

  for await (const part of recoverToolCalls({
    tools: ["read_file", "bash"], // the tool names offered in this request
    attempt: (_round, { instruction, signal }) => callModel(instruction, signal),
    signal: AbortSignal.timeout(60_000),
    options: { onEvent: (event) => events.push(event) },
  })) {
    seen.push(part)
  }

  expect(seen).toEqual([
    { type: "text", text: "Let me read it.\n" },
    { type: "attempt-start", round: 1, discarded: [{ finishReason: "stop" }] },
    { type: "tool-call", toolName: "read_file", params: '{"path":"src/a.ts"}', raw: "call_1" },
    { type: "finish", raw: { finishReason: "stop" } },
  ])
  expect(events.map((e) => e.type)).toEqual(["markup-detected", "recovery-started", "recovery-succeeded"])
})

test("README: the instruction", () => {
  const text = defaultInstruction({ round: 1, markup: [], tools: ["read_file"] })
  const retry = { messages: [{ role: "system", content: text }] }
  const placement = resolvePlacement({}) // "system"
  expect(isRetryRequest(retry)).toBe(true)
  expect(isRetryRequest(JSON.stringify(retry))).toBe(true)
  expect(isRetryRequest({ messages: [{ role: "user", content: "Read src/a.ts." }] })).toBe(false)
  expect(placement).toBe("system")
})

test("README: events", async () => {
  const counts = new Map<RecoveryEvent["type"], number>()
  const onEvent = (event: RecoveryEvent) => counts.set(event.type, (counts.get(event.type) ?? 0) + 1)

  // Three malformed responses: two retries, then repeated-markup.
  const leak = '<tool_call>\n{"name": "bash", "arguments": {}}\n</tool_call>'
  const turn = recoverToolCalls({
    tools: ["bash"],
    attempt: async function* () {
      yield { type: "text", text: leak }
    },
    options: { onEvent, maxRecoveries: 2 },
  })
  await expect(
    (async () => {
      for await (const _ of turn);
    })(),
  ).rejects.toSatisfy(ToolCallRecoveryError.isInstance)
  expect(counts.get("markup-detected")).toBe(3)
  expect(counts.get("recovery-started")).toBe(2)
  expect(counts.get("recovery-failed")).toBe(1)
})

test("README: errors", async () => {
  const rendered: OutputPart[] = []
  const notices: string[] = []
  const render = (part: OutputPart) => rendered.push(part)
  const showNotice = (text: string) => notices.push(text)

  async function show(parts: AsyncIterable<OutputPart>): Promise<void> {
    try {
      for await (const part of parts) render(part)
    } catch (error) {
      if (ToolCallRecoveryError.isInstance(error)) {
        if (error.code === "repeated-markup")
          showNotice(`The model could not make a proper tool call (${error.rounds} tries).`)
        else if (error.code === "aborted") return
        else throw error
      } else throw error // provider / HTTP error, unchanged
    }
  }

  await show(
    recoverToolCalls({
      tools: ["bash"],
      attempt: async function* () {
        yield { type: "text", text: 'Sure.\n<tool_call>\n{"name": "bash", "arguments": {}}\n</tool_call>' }
      },
    }),
  )
  expect(notices).toEqual(["The model could not make a proper tool call (2 tries)."])
  expect(rendered.map((p) => p.type)).toEqual(["text", "attempt-start", "text"])

  const providerError = new Error("HTTP 500")
  await expect(
    show(
      recoverToolCalls({
        tools: ["bash"],
        attempt: async function* () {
          yield* []
          throw providerError
        },
      }),
    ),
  ).rejects.toBe(providerError)
})

test("README: unknown tool calls", () => {
  expect(classifyToolCall("rm_rf", ["read_file"])).toBe("unknown")
  const error = toolCallError("rm_rf", '{"path":"/"}', ["read_file"])
  expect(error).toEqual({
    name: "rm_rf",
    params: '{"path":"/"}',
    error: unknownToolMessage("rm_rf", ["read_file"]),
  })
  expect(error.error).toMatch(/^Unknown tool "rm_rf": .* Available tools: read_file\.$/)
})
