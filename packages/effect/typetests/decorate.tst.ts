import type { RecoveryOptions, SharedOptionName } from "@tool-rescue/recovery"
import type { Effect, Layer, Stream } from "effect"
import { type AiError, LanguageModel, type Response } from "effect/ai"
import { describe, expect, test } from "tstyche"
import { isToolCallRecoveryError, ToolCallRecovery } from "../src/index.ts"

describe("the decorator keeps Effect's types", () => {
  test("layer is Layer<LanguageModel, never, LanguageModel>", () => {
    expect(ToolCallRecovery.layer()).type.toBe<
      Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel>
    >()
    expect(ToolCallRecovery.layer({ maxRecoveries: 1, instructionPlacement: "user" })).type.toBe<
      Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel>
    >()
  })

  test("decorate maps a service to a service of the same type", () => {
    expect(ToolCallRecovery.decorate()).type.toBe<
      (service: LanguageModel.LanguageModel) => LanguageModel.LanguageModel
    >()
  })

  test("withRecovery keeps an effect's success and error, and requires the LanguageModel", () => {
    const program = LanguageModel.generateText({ prompt: "hi" })
    const recovering = program.pipe(ToolCallRecovery.withRecovery())
    expect(recovering).type.toBe<typeof program>()
    const plain = {} as Effect.Effect<number, "e", "r">
    expect(plain.pipe(ToolCallRecovery.withRecovery())).type.toBe<
      Effect.Effect<number, "e", "r" | LanguageModel.LanguageModel>
    >()
  })

  test("withRecovery keeps a stream's element and error", () => {
    const stream = LanguageModel.streamText({ prompt: "hi" })
    expect(stream.pipe(ToolCallRecovery.withRecovery())).type.toBe<
      Stream.Stream<Response.StreamPart<{}, "decoded">, AiError.AiError, LanguageModel.LanguageModel>
    >()
  })

  test("the options are recovery's options, checked", () => {
    expect(ToolCallRecovery.layer).type.toBeCallableWith({ instructionPlacement: "system" })
    expect(ToolCallRecovery.layer).type.not.toBeCallableWith({ instructionPlacement: "middle" })
    expect(ToolCallRecovery.layer).type.not.toBeCallableWith({ maxRecoveries: "1" })
    expect(ToolCallRecovery.layer).type.toBeCallableWith({ recoveryScope: "step" })
    expect(ToolCallRecovery.layer).type.not.toBeCallableWith({ recoveryScope: "call" })
  })

  test("the options take unknownToolCalls, and the layer keeps its type with it", () => {
    expect(ToolCallRecovery.layer).type.toBeCallableWith({ unknownToolCalls: "return" })
    expect(ToolCallRecovery.withRecovery).type.toBeCallableWith({ unknownToolCalls: "error" })
    expect(ToolCallRecovery.layer).type.not.toBeCallableWith({ unknownToolCalls: "ignore" })
    expect(ToolCallRecovery.layer({ unknownToolCalls: "return" })).type.toBe<
      Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel>
    >()
  })
})

describe("isToolCallRecoveryError", () => {
  test("narrows to the ToolCallRecovery AiError", () => {
    const error: unknown = undefined
    if (isToolCallRecoveryError(error)) {
      expect(error.module).type.toBe<"ToolCallRecovery">()
      expect(error.reason).type.toBeAssignableTo<AiError.UnknownError>()
      expect(error).type.toBeAssignableTo<AiError.AiError>()
      expect(error.reason.metadata.toolRescue?.code).type.toBe<
        "repeated-markup" | "persist-failed" | "aborted" | "truncated-call" | undefined
      >()
    }
  })

  test("is the same guard in the namespace and at the top level", () => {
    expect(ToolCallRecovery.isToolCallRecoveryError).type.toBe(isToolCallRecoveryError)
  })
})

describe("the options every adapter shares", () => {
  test("have recovery's names and types (unknownToolMarkup and announcedCalls included)", () => {
    expect<Pick<ToolCallRecovery.Options, SharedOptionName>>().type.toBe<
      Pick<RecoveryOptions, SharedOptionName>
    >()
  })
})
