import type { LanguageModelV3Middleware, LanguageModelV4, LanguageModelV4Middleware } from "@ai-sdk/provider"
import type { RecoveryOptions, SharedOptionName } from "@tool-rescue/recovery"
import { extractReasoningMiddleware, type LanguageModelMiddleware, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { describe, expect, test } from "tstyche"
import {
  isToolCallRecoveryError,
  type RecoveryEvent,
  type ToolCallRecoveryError,
  type ToolCallRecoveryMiddlewareOptions,
  toolCallRecoveryMiddleware,
} from "../src/index.ts"
import { toolCallRecoveryMiddleware as toolCallRecoveryMiddlewareV6 } from "../src/v6.ts"

const model = new MockLanguageModelV4()

describe("toolCallRecoveryMiddleware", () => {
  test("returns exactly the SDK's V4 middleware type", () => {
    expect(toolCallRecoveryMiddleware()).type.toBe<LanguageModelV4Middleware>()
  })

  test("is assignable to the middleware types of ai@7 and @ai-sdk/provider@4", () => {
    expect<LanguageModelV4Middleware>().type.toBeAssignableFrom(toolCallRecoveryMiddleware())
    expect<LanguageModelMiddleware>().type.toBeAssignableFrom(toolCallRecoveryMiddleware())
    expect<LanguageModelMiddleware[]>().type.toBeAssignableFrom([
      toolCallRecoveryMiddleware(),
      extractReasoningMiddleware({ tagName: "think" }),
    ])
  })

  test("the wrapped model has exactly the type it has without the middleware", () => {
    const wrapped = wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware() })
    const without = wrapLanguageModel({ model, middleware: [] })
    const other = wrapLanguageModel({ model, middleware: extractReasoningMiddleware({ tagName: "think" }) })
    expect(wrapped).type.toBe<typeof without>()
    expect(wrapped).type.toBe<typeof other>()
    expect(wrapped).type.toBe<LanguageModelV4>()
    expect(
      wrapLanguageModel({
        model,
        middleware: [toolCallRecoveryMiddleware(), extractReasoningMiddleware({ tagName: "think" })],
      }),
    ).type.toBe<LanguageModelV4>()
  })

  test("options are optional and typed", () => {
    expect(toolCallRecoveryMiddleware).type.toBeCallableWith()
    expect(toolCallRecoveryMiddleware).type.toBeCallableWith({})
    expect(toolCallRecoveryMiddleware).type.toBeCallableWith({
      maxRecoveries: 2,
      evidence: "envelope",
      reasoning: "ignore",
      instructionPlacement: "user",
      instruction: (context: { round: number }) => `retry ${context.round}`,
      formats: ["qwen3-coder", "hermes"],
      maxHoldChars: 8192,
      persistFailed: async (failed: { text: string }) => {
        void failed.text
      },
      onEvent: (event: RecoveryEvent) => {
        void event.type
      },
    })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ instructionPlacement: "assistant" })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ evidence: "vibes" })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ reasoning: true })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ maxRecoveries: "1" })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ formats: ["not-a-format"] })
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ instruction: 42 })
  })

  test("exactOptionalPropertyTypes: an option is omitted, not set to undefined", () => {
    expect(toolCallRecoveryMiddleware).type.not.toBeCallableWith({ maxRecoveries: undefined })
  })

  test("events are a discriminated union", () => {
    const onEvent = (event: RecoveryEvent) => {
      if (event.type === "recovery-failed") expect(event.error).type.toBe<unknown>()
      if (event.type === "markup-detected") expect(event.text).type.toBe<string>()
    }
    expect<ToolCallRecoveryMiddlewareOptions["onEvent"]>().type.toBeAssignableFrom(onEvent)
  })

  test("isToolCallRecoveryError narrows to the branded error with its code", () => {
    const error: unknown = new Error("x")
    if (isToolCallRecoveryError(error)) {
      expect(error).type.toBe<ToolCallRecoveryError>()
      expect(error.code).type.toBe<"repeated-markup" | "persist-failed" | "aborted" | "truncated-call">()
    }
  })
})

describe("@tool-rescue/ai-sdk/v6", () => {
  test("returns the V3 middleware type of ai@6", () => {
    expect(toolCallRecoveryMiddlewareV6()).type.toBe<LanguageModelV3Middleware>()
  })

  test("is not a V4 middleware: ai@7 users import the package root", () => {
    expect<LanguageModelV4Middleware>().type.not.toBeAssignableFrom(toolCallRecoveryMiddlewareV6())
  })

  test("takes the same options", () => {
    expect(toolCallRecoveryMiddlewareV6).type.toBeCallableWith({ instructionPlacement: "user" })
    expect(toolCallRecoveryMiddlewareV6).type.not.toBeCallableWith({ instructionPlacement: "assistant" })
  })
})

describe("the options every adapter shares", () => {
  test("have recovery's names and types (unknownToolMarkup and announcedCalls included)", () => {
    expect<Pick<ToolCallRecoveryMiddlewareOptions, SharedOptionName>>().type.toBe<
      Pick<RecoveryOptions, SharedOptionName>
    >()
  })
})
