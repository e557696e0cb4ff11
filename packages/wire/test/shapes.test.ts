import { describe, expect, it } from "vitest"
import {
  chatChoices,
  chatReasoningText,
  contentText,
  hasChatToolCall,
  isChatChunk,
  isChatCompletion,
  isResponseCallItem,
  isResponseEvent,
  isResponseObject,
  readModelList,
  readResponseEvent,
  readResponseOutput,
} from "../src/index.ts"

describe("recorded chat shapes", () => {
  it("tells chunks from completions by `object` or by what every choice carries", () => {
    expect(isChatChunk({ object: "chat.completion.chunk", choices: [] })).toBe(true)
    expect(isChatChunk({ choices: [{ delta: {} }, { delta: {} }] })).toBe(true)
    expect(isChatChunk({ choices: [{ delta: {} }, { message: {} }] })).toBe(false)
    expect(isChatCompletion({ choices: [{ message: { content: "hi" } }] })).toBe(true)
    expect(chatChoices({ choices: [{}, null, 3] })).toEqual([{}])
  })

  it("reads reasoning and structured calls as the adapters do", () => {
    expect(chatReasoningText({ reasoning_content: "a" })).toBe("a")
    expect(chatReasoningText({ thinking: 3 })).toBe("")
    expect(hasChatToolCall({ tool_calls: [] })).toBe(false)
    expect(hasChatToolCall({ function_call: { name: "f" } })).toBe(true)
  })
})

describe("recorded Responses shapes", () => {
  it("tells a response from its events", () => {
    expect(isResponseObject({ id: "r", output: [] })).toBe(true)
    expect(isResponseObject({ id: "r", output: [], type: "response.completed" })).toBe(false)
    expect(isResponseEvent({ type: "response.completed" })).toBe(true)
    expect(isResponseCallItem({ type: "custom_tool_call" })).toBe(true)
  })

  it("reads an output's text, reasoning and structured calls", () => {
    const output = [
      { type: "reasoning", content: [{ type: "reasoning_text", text: "think" }] },
      {
        type: "message",
        content: [
          { type: "output_text", text: "Hi" },
          { type: "refusal", refusal: "no" },
        ],
      },
      { type: "function_call", name: "f", arguments: "{}" },
    ]
    expect(readResponseOutput(output)).toEqual({ text: ["Hi"], reasoning: ["think"], structured: true })
    expect(contentText(["a", { type: "text", text: "b" }])).toBe("ab")
  })
})

describe("readResponseEvent", () => {
  it("reads what each recorded event says about the answer", () => {
    expect(readResponseEvent({ type: "response.created" })).toEqual({ kind: "start" })
    expect(readResponseEvent({ type: "response.reasoning_text.delta", delta: "t" })).toEqual({
      kind: "reasoning",
      text: "t",
    })
    expect(readResponseEvent({ type: "response.refusal.delta", delta: "no" })).toEqual({ kind: "other" })
    expect(readResponseEvent({ type: "response.output_text.delta" })).toEqual({ kind: "other" })
    expect(readResponseEvent({ type: "response.custom_tool_call_input.delta", delta: "x" })).toEqual({
      kind: "call",
    })
    expect(readResponseEvent({ type: "response.output_item.done", item: { type: "message" } })).toEqual({
      kind: "other",
    })
    const response = { id: "r", output: [] }
    expect(readResponseEvent({ type: "response.failed", response })).toEqual({ kind: "end", response })
  })
})

describe("the model list (GET /models)", () => {
  it("reads ids and owners, leaving out entries without an id", () => {
    expect(
      readModelList({
        object: "list",
        data: [{ id: "qwen3-coder", owned_by: "vllm" }, { id: "llama" }, { id: 3 }, null, "x"],
      }),
    ).toEqual([
      { id: "qwen3-coder", ownedBy: "vllm" },
      { id: "llama", ownedBy: undefined },
    ])
  })

  it("says a body without a data list is not a model list", () => {
    for (const body of [null, [], { data: {} }, { models: [] }, "list"])
      expect(readModelList(body)).toBeUndefined()
    expect(readModelList({ data: [] })).toEqual([])
  })
})
