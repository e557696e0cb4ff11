import { describe, expect, it } from "vitest"
import { responses } from "../src/index.ts"

describe("responses.request", () => {
  const tools = [{ type: "function", name: "read_file" }, { type: "web_search" }]

  it("reads function and custom tools, and the stateful fields recovery cannot apply", () => {
    expect(responses.request({ input: "hi", tools }, () => 0).tools).toEqual(["read_file"])
    expect(responses.request({ input: "hi", tools, background: true }, () => 0).unsupported).toBe(
      "background",
    )
    // A conversation already stores the malformed response: recovered with no retry, never skipped.
    const stateful = responses.request({ input: "hi", tools, conversation: "conv_1" }, () => 0)
    expect(stateful.unsupported).toBeUndefined()
    expect(stateful.noRetry).toMatch(/`conversation` already holds the malformed response/)
    // `previous_response_id` and `store` go upstream as they came: the retry drops nothing of them.
    const body = { input: "hi", tools, previous_response_id: "resp_1", store: true }
    expect(responses.request(body, () => 0).unsupported).toBeUndefined()
    expect(responses.retryBody(body, "Use a tool call.", "system")).toEqual({
      ...body,
      instructions: "Use a tool call.",
    })
  })

  it("counts the marks of call items after the last user item; a string input starts a turn", () => {
    const body = {
      input: [
        { type: "message", role: "user", content: "go" },
        { type: "function_call", call_id: "a" },
        { type: "function_call_output", call_id: "a", output: "ok" },
      ],
      tools,
    }
    expect(responses.request(body, (id) => (id === "a" ? 1 : 0)).recoveriesBefore).toBe(1)
    expect(responses.turnStart({ input: "hello" })).toBe("hello")
  })
})

describe("responses.markCalls", () => {
  const mark = (id: unknown) => `${String(id)}-retry1`

  it("marks call items of an event, of an event's response and of a whole response", () => {
    const added = { type: "response.output_item.added", item: { type: "function_call", call_id: "c1" } }
    expect(responses.markCalls(added, mark)).toEqual({
      ...added,
      item: { type: "function_call", call_id: "c1-retry1" },
    })
    const response = { object: "response", output: [{ type: "custom_tool_call", call_id: "c2" }] }
    expect(responses.markCalls(response, mark)).toEqual({
      object: "response",
      output: [{ type: "custom_tool_call", call_id: "c2-retry1" }],
    })
    const completed = { type: "response.completed", response }
    expect(responses.markCalls(completed, mark)).toEqual({
      type: "response.completed",
      response: { object: "response", output: [{ type: "custom_tool_call", call_id: "c2-retry1" }] },
    })
  })
})

describe("responses.errors", () => {
  it("ends a stream with an `error` event the openai client reads", () => {
    const error = {
      type: responses.errors.types["tool-call-recovery"],
      code: "repeated-markup",
      message: "m",
    }
    expect(responses.errors.event(error)).toEqual({
      name: "error",
      data: {
        type: "error",
        code: "repeated-markup",
        message: "m",
        error: { type: "tool_call_recovery_error", code: "repeated-markup", message: "m", param: null },
      },
    })
    expect(responses.isStreamError({ type: "error" }, undefined)).toBe(true)
    expect(responses.eventName({ type: "response.created" })).toBe("response.created")
  })
})
