import { type AIMessageChunk, HumanMessage } from "@langchain/core/messages"
import type { ChatOpenAI } from "@langchain/openai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { collect, functionTool, harness, leak } from "./support/harness.ts"

const sample = leak("L8")
const tools = sample.tools.map(functionTool)
const messages = [new HumanMessage("Where is BaseService?")]
const call = { name: "GrepTool", arguments: '{"pattern":"class BaseService"}', id: "call_retry" }
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))

describe("event streams", () => {
  it("streamEvents v2: every on_chat_model_stream chunk is clean and the end event holds the retry's call", async () => {
    const { model, server } = await harness([{ content: sample.text, chunkSize: 5 }, { toolCalls: [call] }])
    const events = await collect(model.bindTools(tools).streamEvents(messages, { version: "v2" }))
    const streamed = events
      .filter((event) => event.event === "on_chat_model_stream")
      .map((event) => (event.data.chunk as AIMessageChunk).content)
      .join("")
    expect(streamed).toBe(safePrefix)
    const end = events.find((event) => event.event === "on_chat_model_end")
    expect((end!.data.output as AIMessageChunk).tool_calls).toMatchObject([{ name: "GrepTool" }])
    expect(server.requests).toHaveLength(2)
  })

  it("streamEvents (content-block protocol): text deltas are clean, the message ends with the structured call", async () => {
    const { model, server } = await harness([{ content: sample.text, chunkSize: 3 }, { toolCalls: [call] }])
    // ChatOpenAI.bindTools returns a ChatOpenAI (typed as a Runnable): the tools sit in its
    // defaultOptions, not in this call's options.
    const stream = (model.bindTools(tools) as ChatOpenAI).streamEvents(messages)
    const deltas: string[] = []
    for await (const event of stream) {
      if (event.event === "content-block-delta" && event.delta.type === "text-delta")
        deltas.push(event.delta.text)
    }
    const message = await stream.output
    expect(deltas.join("")).toBe(safePrefix)
    expect(message.tool_calls).toMatchObject([{ name: "GrepTool", args: { pattern: "class BaseService" } }])
    expect(server.requests).toHaveLength(2)
  })

  it("withStructuredOutput keeps working, and a leaked call to its tool is recovered", async () => {
    const schema = z.object({ answer: z.string() })
    const leaked =
      "<tool_call>\n<function=extract>\n<parameter=answer>\n42\n</parameter>\n</function>\n</tool_call>"
    const { model, server } = await harness([
      { content: leaked },
      { toolCalls: [{ name: "extract", arguments: '{"answer":"42"}' }] },
    ])
    const result = await model
      .withStructuredOutput(schema, { name: "extract", method: "functionCalling" })
      .invoke(messages)
    expect(result).toEqual({ answer: "42" })
    expect(server.requests).toHaveLength(2)
  })
})
