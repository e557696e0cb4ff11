import type { Effect, Stream } from "effect"
import { Schema } from "effect"
import { type AiError, type Chat, LanguageModel, type Response, Tool, Toolkit } from "effect/ai"
import { describe, expect, test } from "tstyche"
import { ToolCallRecovery } from "../src/index.ts"

const GetWeather = Tool.make("GetWeather", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String,
})
const toolkit = Toolkit.make(GetWeather)
type Tools = Toolkit.Tools<typeof toolkit>
type Returned =
  | ToolCallRecovery.ToolCallErrorPart
  | ToolCallRecovery.ToolCallErrorCallPart
  | ToolCallRecovery.ToolCallErrorResultPart

declare const chat: Chat.Chat

describe("Chat's per-call option", () => {
  test("Effect 4.1's Chat rejects unknownToolCalls (the reason for withUnknownToolCalls)", () => {
    expect(chat.generateText).type.not.toBeCallableWith({ prompt: "hi", toolkit, unknownToolCalls: "return" })
    expect(chat.streamText).type.not.toBeCallableWith({ prompt: "hi", toolkit, unknownToolCalls: "return" })
  })
})

describe('withUnknownToolCalls("return")', () => {
  const returning = ToolCallRecovery.withUnknownToolCalls("return")

  test("Chat.generateText's response gains toolCallErrors and the error parts", () => {
    const sent = chat.generateText({ prompt: "hi", toolkit }).pipe(returning)
    type Ok = Effect.Success<typeof sent>
    expect<Ok>().type.toBe<
      ToolCallRecovery.GenerateTextResponse<Tools, "opaque", ToolCallRecovery.ToolCallErrorPart>
    >()
    expect<Ok["toolCallErrors"]>().type.toBe<Array<ToolCallRecovery.ToolCallErrorPart>>()
    expect<Ok["content"]>().type.toBe<Array<Response.Part<Tools, "opaque"> | Returned>>()
    expect(ToolCallRecovery.fromResponseParts).type.toBeCallableWith([] as Ok["content"])
  })

  test("the error and requirement types are Chat's", () => {
    const effects = chat.generateText({ prompt: "hi", toolkit })
    const sent = effects.pipe(returning)
    expect<Effect.Error<typeof sent>>().type.toBe<Effect.Error<typeof effects>>()
    expect<Effect.Error<typeof sent>>().type.toBe<AiError.AiError>()
    expect<Effect.Services<typeof sent>>().type.toBe<Effect.Services<typeof effects>>()
  })

  test("disabled resolution keeps Effect's encoded parameters mode", () => {
    const sent = chat.generateText({ prompt: "hi", toolkit, disableToolCallResolution: true }).pipe(returning)
    expect<Effect.Success<typeof sent>["content"]>().type.toBe<
      Array<Response.Part<Tools, "encoded"> | Returned>
    >()
  })

  test("deferred validation is left alone: the option changes nothing there", () => {
    const effects = chat.generateText({
      prompt: "hi",
      toolkit,
      disableToolCallResolution: true,
      toolCallValidation: "deferred",
    })
    expect<Effect.Success<ReturnType<typeof returning<typeof effects>>>>().type.toBe<
      Effect.Success<typeof effects>
    >()
  })

  test("Chat.streamText's parts gain the error parts", () => {
    const stream = chat.streamText({ prompt: "hi", toolkit }).pipe(returning)
    expect<Stream.Success<typeof stream>>().type.toBe<Response.StreamPart<Tools, "opaque"> | Returned>()
    expect<Stream.Error<typeof stream>>().type.toBe<AiError.AiError>()
  })

  test("LanguageModel's accessors too", () => {
    const sent = LanguageModel.generateText({ prompt: "hi", toolkit }).pipe(returning)
    expect<Effect.Success<typeof sent>["toolCallErrors"]>().type.toBe<
      Array<ToolCallRecovery.ToolCallErrorPart>
    >()
  })

  test("generateObject keeps its value", () => {
    const sent = chat
      .generateObject({ prompt: "hi", schema: Schema.Struct({ city: Schema.String }) })
      .pipe(returning)
    expect<Effect.Success<typeof sent>["value"]>().type.toBe<{ readonly city: string }>()
  })

  test("any other effect keeps its types and requires LanguageModel", () => {
    const sent = (null as unknown as Effect.Effect<number, "e", "r">).pipe(returning)
    expect(sent).type.toBe<Effect.Effect<number, "e", "r" | LanguageModel.LanguageModel>>()
  })
})

describe('withUnknownToolCalls("error")', () => {
  test("keeps Effect's types", () => {
    const effects = chat.generateText({ prompt: "hi", toolkit })
    const sent = effects.pipe(ToolCallRecovery.withUnknownToolCalls("error"))
    expect<Effect.Success<typeof sent>>().type.toBe<Effect.Success<typeof effects>>()
    const stream = chat
      .streamText({ prompt: "hi", toolkit })
      .pipe(ToolCallRecovery.withUnknownToolCalls("error"))
    expect<Stream.Success<typeof stream>>().type.toBe<Response.StreamPart<Tools, "opaque">>()
  })

  test("only the two option values", () => {
    expect(ToolCallRecovery.withUnknownToolCalls).type.not.toBeCallableWith("ignore")
  })
})
