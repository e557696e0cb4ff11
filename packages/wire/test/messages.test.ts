import { describe, expect, it } from "vitest"
import { messages } from "../src/index.ts"

describe("messages.request", () => {
  it("reads client tools (not server tools) and tool_choice by kind", () => {
    const body = {
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { name: "read_file", input_schema: {} },
        { type: "web_search_20250305", name: "web_search" },
      ],
      tool_choice: { type: "any" },
    }
    expect(messages.request(body, () => 0)).toEqual({
      tools: ["read_file"],
      toolChoice: "required",
      recoveriesBefore: 0,
    })
  })

  it("a user message of only tool results continues the turn", () => {
    const body = {
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      ],
      tools: [{ name: "x" }],
    }
    expect(messages.request(body, (id) => (id === "t1" ? 2 : 0)).recoveriesBefore).toBe(2)
    expect(messages.turnStart(body)).toEqual({ role: "user", content: "go" })
  })
})

describe("messages.markCalls", () => {
  const mark = (id: unknown) => `${String(id)}-retry1`

  it("marks a tool_use block's start and a whole message's tool_use blocks", () => {
    const start = { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t1" } }
    expect(messages.markCalls(start, mark)).toEqual({
      ...start,
      content_block: { type: "tool_use", id: "t1-retry1" },
    })
    const message = {
      type: "message",
      content: [
        { type: "text", text: "hi" },
        { type: "tool_use", id: "t2" },
      ],
    }
    expect(messages.markCalls(message, mark)).toEqual({
      type: "message",
      content: [
        { type: "text", text: "hi" },
        { type: "tool_use", id: "t2-retry1" },
      ],
    })
  })
})

describe("messages.errors", () => {
  it("has Anthropic's types and body", () => {
    const { types } = messages.errors
    expect([types["too-large"], types.server, types.upstream]).toEqual([
      "request_too_large",
      "api_error",
      "api_error",
    ])
    expect(messages.errors.body({ type: "api_error", code: "proxy-error", message: "m" })).toEqual({
      type: "error",
      error: { type: "api_error", code: "proxy-error", message: "m" },
    })
  })
})
