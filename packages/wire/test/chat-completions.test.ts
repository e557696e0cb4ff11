import { describe, expect, it } from "vitest"
import { chatCompletions } from "../src/index.ts"

describe("reasoning fields (recovery's reasoningField)", () => {
  it("reads reasoning_content, reasoning and thinking, in chunks and in completions", () => {
    for (const field of ["reasoning_content", "reasoning", "thinking"]) {
      const chunk = {
        id: "c",
        object: "chat.completion.chunk",
        created: 0,
        model: "m",
        choices: [{ index: 0, delta: { [field]: "Let me think." }, finish_reason: null }],
      }
      expect(chatCompletions.streamParts(chunk).map((part) => part.type)).toEqual(["reasoning"])
      const completion = {
        id: "c",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "Hi", [field]: "Let me think." },
            finish_reason: "stop",
          },
        ],
      }
      expect(chatCompletions.dataParts(completion).map((part) => part.type)).toEqual([
        "reasoning",
        "text",
        "finish",
      ])
    }
  })
})

describe("chatCompletions.request", () => {
  it("reads the offered tools, the tool choice and n > 1", () => {
    const body = {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { type: "function", function: { name: "read_file" } },
        { type: "custom", custom: { name: "patch" } },
        { type: "function", function: { name: "read_file" } },
      ],
      tool_choice: { type: "function", function: { name: "read_file" } },
      n: 2,
    }
    expect(chatCompletions.request(body, () => 0)).toEqual({
      tools: ["read_file", "patch"],
      toolChoice: "tool",
      unsupported: "multiple-choices",
      model: "m",
      recoveriesBefore: 0,
    })
  })

  it("counts the largest mark of the calls made or answered after the last user message", () => {
    const marks = new Map<unknown, number>([
      ["old", 5],
      ["a", 1],
      ["b", 2],
    ])
    const body = {
      messages: [
        { role: "assistant", tool_calls: [{ id: "old" }] },
        { role: "user", content: "next" },
        { role: "assistant", tool_calls: [{ id: "a" }] },
        { role: "tool", tool_call_id: "b", content: "ok" },
      ],
      tools: [{ type: "function", function: { name: "x" } }],
    }
    expect(chatCompletions.request(body, (id) => marks.get(id) ?? 0).recoveriesBefore).toBe(2)
    expect(chatCompletions.turnStart(body)).toEqual({ role: "user", content: "next" })
  })
})

describe("chatCompletions.markCalls", () => {
  const mark = (id: unknown) => `${String(id)}-retry1`

  it("marks the ids of a delta's and a message's tool calls, and leaves an item without calls alone", () => {
    const chunk = { id: "c", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1" }] } }] }
    expect(chatCompletions.markCalls(chunk, mark)).toEqual({
      id: "c",
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1-retry1" }] } }],
    })
    const completion = { choices: [{ message: { role: "assistant", tool_calls: [{ id: "call_2" }] } }] }
    expect(chatCompletions.markCalls(completion, mark)).toEqual({
      choices: [{ message: { role: "assistant", tool_calls: [{ id: "call_2-retry1" }] } }],
    })
    const text = { id: "c", choices: [{ index: 0, delta: { content: "hi" } }] }
    expect(chatCompletions.markCalls(text, mark)).toBe(text)
  })
})

describe("chatCompletions.errors", () => {
  it("is OpenAI's error body, and a stream's error is an unnamed data event", () => {
    const error = { type: chatCompletions.errors.types.upstream, code: "upstream-timeout", message: "Late." }
    const body = {
      error: { type: "upstream_error", code: "upstream-timeout", message: "Late.", param: null },
    }
    expect(chatCompletions.errors.body(error)).toEqual(body)
    expect(chatCompletions.errors.event(error)).toEqual({ name: undefined, data: body })
    expect(chatCompletions.isStreamError({ error: { message: "boom" } }, undefined)).toBe(true)
    expect(chatCompletions.sentinel).toBe(true)
  })
})
