import type { BaseLanguageModelInput } from "@langchain/core/language_models/base"
import type { BaseChatModel } from "@langchain/core/language_models/chat_models"
import type { AIMessageChunk } from "@langchain/core/messages"
import type { Runnable } from "@langchain/core/runnables"
import { ChatOpenAI, type ChatOpenAICallOptions } from "@langchain/openai"
import type { RecoveryOptions, SharedOptionName } from "@tool-rescue/recovery"
import type { AgentMiddleware } from "langchain"
import { createAgent } from "langchain"
import { describe, expect, test } from "tstyche"
import type { ToolCallRecoveryOptions as SharedOptionsOf } from "../src/index.ts"
import {
  isToolCallRecoveryError,
  type ToolCallRecoveryError,
  type ToolCallRecoveryErrorCode,
  type ToolCallRecoveryOptions,
  toolCallRecoveryMiddleware,
  unwrapChatModel,
  withToolCallRecovery,
} from "../src/index.ts"

const model = new ChatOpenAI({ model: "m", apiKey: "x" })

describe("withToolCallRecovery", () => {
  test("returns exactly the model's own type", () => {
    expect(withToolCallRecovery(model)).type.toBe<ChatOpenAI>()
    expect(
      withToolCallRecovery(model, { maxRecoveries: 2, onEvent: (event) => console.log(event.type) }),
    ).type.toBe<ChatOpenAI>()
    expect(unwrapChatModel(withToolCallRecovery(model))).type.toBe<ChatOpenAI>()
  })

  test("keeps the model's methods and their types", () => {
    const wrapped = withToolCallRecovery(model)
    expect(wrapped.invoke("hi")).type.toBe<Promise<AIMessageChunk>>()
    expect(wrapped.bindTools([])).type.toBe(model.bindTools([]))
    expect(wrapped.bindTools([])).type.toBeAssignableTo<
      Runnable<BaseLanguageModelInput, AIMessageChunk, ChatOpenAICallOptions>
    >()
    expect(wrapped.batch(["a", "b"])).type.toBe<Promise<AIMessageChunk[]>>()
  })

  test("accepts any BaseChatModel, and nothing else", () => {
    expect(withToolCallRecovery<BaseChatModel>(model)).type.toBe<BaseChatModel>()
    expect(withToolCallRecovery).type.not.toBeCallableWith({ invoke: () => "hi" })
    expect(withToolCallRecovery).type.not.toBeCallableWith(model, { maxRecoveries: "1" })
    expect(withToolCallRecovery).type.not.toBeCallableWith(model, { instructionPlacement: "assistant" })
  })
})

describe("toolCallRecoveryMiddleware", () => {
  test("is an AgentMiddleware that createAgent takes", () => {
    expect(toolCallRecoveryMiddleware()).type.toBeAssignableTo<AgentMiddleware>()
    expect(createAgent).type.toBeCallableWith({
      model,
      tools: [],
      middleware: [toolCallRecoveryMiddleware()],
    })
  })

  test("takes the same options as every adapter", () => {
    expect(toolCallRecoveryMiddleware).type.toBeCallableWith({
      persistFailed: async () => {},
      onEvent: () => {},
      maxRecoveries: 1,
      instructionPlacement: "user",
      evidence: "envelope",
      reasoning: "ignore",
    } satisfies ToolCallRecoveryOptions)
  })
})

test("isToolCallRecoveryError narrows to the error with its code union", () => {
  const error: unknown = new Error("x")
  if (isToolCallRecoveryError(error)) {
    expect(error).type.toBe<ToolCallRecoveryError>()
    expect(error.code).type.toBe<ToolCallRecoveryErrorCode>()
    expect<
      "repeated-markup" | "persist-failed" | "aborted" | "truncated-call"
    >().type.toBeAssignableTo<ToolCallRecoveryErrorCode>()
  }
})

describe("the options every adapter shares", () => {
  test("have recovery's names and types (unknownToolMarkup and announcedCalls included)", () => {
    expect<Pick<SharedOptionsOf, SharedOptionName>>().type.toBe<Pick<RecoveryOptions, SharedOptionName>>()
  })
})
