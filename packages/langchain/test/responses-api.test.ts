import { HumanMessage, SystemMessage } from "@langchain/core/messages"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { describe, expect, it } from "vitest"
import { collect, functionTool, harness, leak, sentText } from "./support/harness.ts"

// ChatOpenAI on the Responses API (`useResponsesApi: true`, as vLLM and others serve it): content
// arrives as an array of content blocks, not a string.
const sample = leak("L8")
const tools = sample.tools.map(functionTool)
const messages = [new SystemMessage("You are a coding agent."), new HumanMessage("Where is BaseService?")]
const call = { name: "GrepTool", arguments: '{"pattern":"class BaseService"}' }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))

function textOf(content: unknown): string {
  if (typeof content === "string") return content
  return (content as { type: string; text?: string }[])
    .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("")
}

describe("ChatOpenAI({ useResponsesApi: true })", () => {
  it("stream: the text blocks never carry the markup, the retry's call ends the message", async () => {
    const { model, server, events } = await harness(
      [{ content: sample.text, chunkSize: 5 }, { toolCalls: [call] }],
      {},
      { useResponsesApi: true },
    )
    const chunks = await collect(await model.bindTools(tools).stream(messages))
    expect(chunks.map((chunk) => textOf(chunk.content)).join("")).toBe(safePrefix)
    let whole = chunks[0]!
    for (const chunk of chunks.slice(1)) whole = whole.concat(chunk)
    expect(whole.tool_calls).toMatchObject([{ name: "GrepTool", args: { pattern: "class BaseService" } }])
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]!.api).toBe("responses")
    expect(isRetryRequest(sentText(server.requests[1]!.body))).toBe(true)
    expect(events.map((event) => event.type)).toEqual([
      "markup-detected",
      "recovery-started",
      "recovery-succeeded",
    ])
  })

  it("invoke: the result holds the retry's call and no text block with the malformed response", async () => {
    const { model, server } = await harness(
      [{ content: sample.text }, { toolCalls: [call] }],
      {},
      { useResponsesApi: true },
    )
    const reply = await model.bindTools(tools).invoke(messages)
    expect(textOf(reply.content)).toBe("")
    expect(reply.tool_calls).toMatchObject([{ name: "GrepTool" }])
    expect(server.requests).toHaveLength(2)
  })

  it("a clean answer's content blocks pass through unchanged", async () => {
    const { model, raw } = await harness(
      [{ content: "It is in base.py." }, { content: "It is in base.py." }],
      {},
      { useResponsesApi: true },
    )
    const wrapped = await model.bindTools(tools).invoke(messages)
    const plain = await raw.bindTools(tools).invoke(messages)
    expect(wrapped.content).toEqual(plain.content)
  })
})
