import type { RecoveryOptions, SharedOptionName } from "@tool-rescue/recovery"
import type { APIPromise } from "openai"
import OpenAI, { AzureOpenAI } from "openai"
import type { ChatCompletionStream } from "openai/lib/ChatCompletionStream"
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions"
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses"
import type { Stream } from "openai/streaming"
import OldestOpenAI from "openai-oldest"
import { describe, expect, test } from "tstyche"
import type { ToolCallRecoveryOptions as SharedOptionsOf } from "../src/index.ts"
import {
  type ChatCompletionChunkWithToolCallErrors,
  type ResponseStreamEventWithToolCallErrors,
  type ToolCallError,
  type ToolCallRecoveryOptions,
  toolCallErrorMessages,
  toolCallErrorOutputs,
  withToolCallRecovery,
} from "../src/index.ts"

const client = new OpenAI({ apiKey: "x" })
const chat = { model: "m", messages: [{ role: "user" as const, content: "hi" }] }
const input = { model: "m", input: "hi" }

describe("withToolCallRecovery with the default options", () => {
  test("returns exactly the client's type", () => {
    expect(withToolCallRecovery(client)).type.toBe<OpenAI>()
    expect(withToolCallRecovery(client, {})).type.toBe<OpenAI>()
    expect(withToolCallRecovery(client, { maxRecoveries: 2, onEvent: () => {} })).type.toBe<OpenAI>()
    expect(withToolCallRecovery(client, { unknownToolCalls: "error" })).type.toBe<OpenAI>()
    // An inline listener is typed from the options (no implicit any).
    expect(withToolCallRecovery(client, { onEvent: (event) => console.log(event.type) })).type.toBe<OpenAI>()
    // The lower bound of the peer range, a separate copy of the package.
    expect(withToolCallRecovery(new OldestOpenAI({ apiKey: "x" }))).type.toBe<OldestOpenAI>()
    expect(
      withToolCallRecovery(new AzureOpenAI({ apiKey: "x", endpoint: "https://x", apiVersion: "v" })),
    ).type.toBe<AzureOpenAI>()
  })

  test("create's overloads return what they return without us", () => {
    const wrapped = withToolCallRecovery(client)
    expect(wrapped.chat.completions.create(chat)).type.toBe<APIPromise<ChatCompletion>>()
    expect(wrapped.chat.completions.create({ ...chat, stream: true })).type.toBe<
      APIPromise<Stream<ChatCompletionChunk>>
    >()
    expect(wrapped.chat.completions.create({ ...chat, stream: Math.random() > 0.5 })).type.toBe<
      APIPromise<Stream<ChatCompletionChunk> | ChatCompletion>
    >()
    expect(wrapped.responses.create(input)).type.toBe<APIPromise<Response>>()
    expect(wrapped.responses.create({ ...input, stream: true })).type.toBe<
      APIPromise<Stream<ResponseStreamEvent>>
    >()
    expect(wrapped.chat.completions.stream(chat)).type.toBe<ChatCompletionStream<null>>()
  })

  test("results have no tool_call_errors", async () => {
    const wrapped = withToolCallRecovery(client)
    expect(await wrapped.chat.completions.create(chat)).type.not.toHaveProperty("tool_call_errors")
    expect(await wrapped.responses.create(input)).type.not.toHaveProperty("tool_call_errors")
  })

  test("only valid options are accepted", () => {
    expect(withToolCallRecovery).type.not.toBeCallableWith(client, { unknownToolCalls: "ignore" })
    expect(withToolCallRecovery).type.not.toBeCallableWith(client, { instructionPlacement: "end" })
    expect(withToolCallRecovery).type.not.toBeCallableWith({ chat: {} })
  })
})

describe('unknownToolCalls: "return"', () => {
  const wrapped = withToolCallRecovery(client, { unknownToolCalls: "return" })

  test("non-streamed results carry tool_call_errors", () => {
    expect(wrapped.chat.completions.create(chat)).type.toBe<
      APIPromise<ChatCompletion & { tool_call_errors: ToolCallError[] }>
    >()
    expect(wrapped.responses.create(input)).type.toBe<
      APIPromise<Response & { tool_call_errors: ToolCallError[] }>
    >()
  })

  test("streamed chunks and terminal events may carry them", () => {
    expect(wrapped.chat.completions.create({ ...chat, stream: true })).type.toBe<
      APIPromise<Stream<ChatCompletionChunkWithToolCallErrors>>
    >()
    expect(wrapped.responses.create({ ...input, stream: true })).type.toBe<
      APIPromise<Stream<ResponseStreamEventWithToolCallErrors>>
    >()
  })

  test("the rest of the client is the client's own, and withOptions keeps the type", () => {
    expect(wrapped.models.list).type.toBe<OpenAI["models"]["list"]>()
    expect(wrapped.chat.completions.stream).type.toBe<OpenAI["chat"]["completions"]["stream"]>()
    expect(wrapped.withOptions({ timeout: 1 })).type.toBe<typeof wrapped>()
  })

  test("the answers to the errors are typed for the next request", async () => {
    const completion = await wrapped.chat.completions.create(chat)
    expect(toolCallErrorMessages(completion)).type.toBe<OpenAI.ChatCompletionToolMessageParam[]>()
    const response = await wrapped.responses.create(input)
    expect(toolCallErrorOutputs(response)).type.toBe<OpenAI.Responses.ResponseInputItem[]>()
  })
})

describe("an option whose value is not statically known", () => {
  test("keeps tool_call_errors in the type, optional", () => {
    const options: ToolCallRecoveryOptions = {}
    const wrapped = withToolCallRecovery(client, options)
    expect(wrapped.chat.completions.create(chat)).type.toBe<
      APIPromise<ChatCompletion & { tool_call_errors?: ToolCallError[] }>
    >()
    const mode = Math.random() > 0.5 ? "error" : "return"
    expect(withToolCallRecovery(client, { unknownToolCalls: mode }).responses.create(input)).type.toBe<
      APIPromise<Response & { tool_call_errors?: ToolCallError[] }>
    >()
  })
})

describe("the options every adapter shares", () => {
  test("have recovery's names and types (unknownToolMarkup and announcedCalls included)", () => {
    expect<Pick<SharedOptionsOf, SharedOptionName>>().type.toBe<Pick<RecoveryOptions, SharedOptionName>>()
  })
})
