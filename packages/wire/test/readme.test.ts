import { expect, test } from "vitest"
import { chatCompletions, messages, recoveryErrorStatus } from "../src/index.ts"

// The README's examples, verbatim but for what checks their results, so they cannot rot.

test("README: a request, as recovery's turn planner reads it", () => {
  const body = {
    model: "qwen3",
    messages: [{ role: "user", content: "Read a.ts" }],
    tools: [{ type: "function", function: { name: "read_file", parameters: {} } }],
  }
  const request = chatCompletions.request(body, () => 0)
  expect(request).toEqual({
    tools: ["read_file"],
    toolChoice: undefined,
    unsupported: undefined,
    model: "qwen3",
    recoveriesBefore: 0,
  })
  const retry = chatCompletions.retryBody(body, "Use a structured tool call.", "system")
  expect(retry.messages).toEqual([
    { role: "system", content: "Use a structured tool call." },
    { role: "user", content: "Read a.ts" },
  ])
})

test("README: stream events to parts and back", () => {
  const event = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }
  const parts = messages.streamParts(event)
  expect(parts).toEqual([{ type: "text", text: "Hi", raw: event }])
  const splicer = messages.createSplicer({ tools: [], returnToolCallErrors: false })
  expect(parts.flatMap((part) => splicer.push(part))).toEqual([event])
})

test("README: errors in the protocol's own shape", () => {
  const { errors } = messages
  const error = { type: errors.types["tool-call-recovery"], code: "repeated-markup", message: "…" }
  expect(recoveryErrorStatus["repeated-markup"]).toBe(422)
  const body = errors.body(error)
  expect(body).toEqual({
    type: "error",
    error: { type: "tool_call_recovery_error", code: "repeated-markup", message: "…" },
  })
  expect(errors.event(error)).toEqual({ name: "error", data: body })
})
