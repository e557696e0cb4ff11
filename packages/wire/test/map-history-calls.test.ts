import { describe, expect, it } from "vitest"
import { chatCompletions, messages, responses } from "../src/index.ts"

const unmark = (id: unknown) => (typeof id === "string" ? id.replace(/-retry\d+$/, "") : id)
const same = (id: unknown) => id

describe("mapHistoryCalls: the tool-call ids of a request's history", () => {
  it("chat: tool_calls[].id and tool_call_id; the body itself when nothing changes", () => {
    const body = {
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", tool_calls: [{ id: "call_1-retry1", type: "function" }, { id: "call_2" }] },
        { role: "tool", tool_call_id: "call_1-retry1", content: "ok" },
      ],
    }
    expect(chatCompletions.mapHistoryCalls(body, unmark)).toEqual({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", tool_calls: [{ id: "call_1", type: "function" }, { id: "call_2" }] },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
      ],
    })
    expect(chatCompletions.mapHistoryCalls(body, same)).toBe(body)
  })

  it("responses: the call_id of call and output items", () => {
    const body = {
      input: [
        { type: "function_call", call_id: "fc-retry2", id: "fc_item-retry2" },
        { type: "function_call_output", call_id: "fc-retry2", output: "ok" },
      ],
    }
    expect(responses.mapHistoryCalls(body, unmark)).toEqual({
      input: [
        { type: "function_call", call_id: "fc", id: "fc_item-retry2" },
        { type: "function_call_output", call_id: "fc", output: "ok" },
      ],
    })
    expect(responses.mapHistoryCalls({ input: "hi" }, unmark)).toEqual({ input: "hi" })
  })

  it("messages: tool_use.id and tool_result.tool_use_id", () => {
    const body = {
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "tu-retry1", name: "Read", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "tu-retry1", content: "ok" }] },
        { role: "user", content: "plain" },
      ],
    }
    expect(messages.mapHistoryCalls(body, unmark)).toEqual({
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "tu", name: "Read", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "tu", content: "ok" }] },
        { role: "user", content: "plain" },
      ],
    })
    expect(messages.mapHistoryCalls(body, same)).toBe(body)
  })

  it("stored: Responses with store: true only", () => {
    expect(responses.stored({ store: true })).toBe(true)
    expect(responses.stored({})).toBe(false)
    expect(chatCompletions.stored({ store: true })).toBe(false)
  })
})
