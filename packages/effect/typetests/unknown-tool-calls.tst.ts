import type { Effect, Stream } from "effect"
import { Schema } from "effect"
import { type AiError, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { describe, expect, test } from "tstyche"
import { ToolCallRecovery } from "../src/index.ts"

const GetWeather = Tool.make("GetWeather", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String,
})
const toolkit = Toolkit.make(GetWeather)
type Tools = Toolkit.Tools<typeof toolkit>

type Content<T> =
  T extends Effect.Effect<infer R, infer _E, infer _S>
    ? R extends { content: Array<infer P> }
      ? P
      : never
    : never
type Errors<T> =
  T extends Effect.Effect<infer R, infer _E, infer _S>
    ? R extends { toolCallErrors: infer X }
      ? X
      : never
    : never
type Ok<T> = Effect.Success<T>

describe("generateText, default option", () => {
  const omitted = ToolCallRecovery.generateText({ prompt: "hi", toolkit })
  const explicit = ToolCallRecovery.generateText({ prompt: "hi", toolkit, unknownToolCalls: "error" })
  const effects = LanguageModel.generateText({ prompt: "hi", toolkit })

  test("toolCallErrors is Array<never>", () => {
    expect<Errors<typeof omitted>>().type.toBe<Array<never>>()
    expect<Errors<typeof explicit>>().type.toBe<Array<never>>()
  })

  test("content is exactly Effect's", () => {
    expect<Content<typeof omitted>>().type.toBe<Response.Part<Tools, "opaque">>()
    expect<Content<typeof omitted>>().type.toBe<Content<typeof effects>>()
    expect<Content<typeof explicit>>().type.toBe<Content<typeof effects>>()
  })

  test('"tool-call-error" is not assignable to the response part type', () => {
    expect<"tool-call-error">().type.not.toBeAssignableTo<Content<typeof omitted>["type"]>()
    expect<ToolCallRecovery.ToolCallErrorPart>().type.not.toBeAssignableTo<Content<typeof explicit>>()
  })

  test("the response is usable as Effect's response", () => {
    expect<Ok<typeof omitted>>().type.toBeAssignableTo<LanguageModel.GenerateTextResponse<Tools, "opaque">>()
    expect<Ok<typeof omitted>["toolCalls"]>().type.toBe<Ok<typeof effects>["toolCalls"]>()
    expect<Ok<typeof omitted>["toolResults"]>().type.toBe<Ok<typeof effects>["toolResults"]>()
  })

  test("Effect's own Prompt.fromResponseParts takes the content", () => {
    expect(Prompt.fromResponseParts).type.toBeCallableWith([] as Content<typeof omitted>[])
  })

  test("error and requirement types are Effect's own", () => {
    expect<Effect.Error<typeof omitted>>().type.toBe<Effect.Error<typeof effects>>()
    expect<Effect.Services<typeof omitted>>().type.toBe<Effect.Services<typeof effects>>()
  })

  test("without a toolkit the parts are Effect's decoded parts", () => {
    const noToolkit = ToolCallRecovery.generateText({ prompt: "hi" })
    expect<Content<typeof noToolkit>>().type.toBe<Response.Part<{}, "decoded">>()
    expect<Effect.Error<typeof noToolkit>>().type.toBe<AiError.AiError>()
  })
})

describe('generateText, unknownToolCalls: "return"', () => {
  const returning = ToolCallRecovery.generateText({ prompt: "hi", toolkit, unknownToolCalls: "return" })

  test("the tool-call-error part joins the union, with the call and failed result that come with it", () => {
    expect<Content<typeof returning>>().type.toBe<
      | Response.Part<Tools, "opaque">
      | ToolCallRecovery.ToolCallErrorPart
      | ToolCallRecovery.ToolCallErrorCallPart
      | ToolCallRecovery.ToolCallErrorResultPart
    >()
    expect<"tool-call-error">().type.toBeAssignableTo<Content<typeof returning>["type"]>()
  })

  test("toolCalls and toolResults include the call and failed result of each error part", () => {
    expect<Ok<typeof returning>["toolCalls"]>().type.toBe<
      Array<Response.ToolCallParts<Tools, "opaque"> | ToolCallRecovery.ToolCallErrorCallPart>
    >()
    expect<Ok<typeof returning>["toolResults"]>().type.toBe<
      Array<Response.ToolResultParts<Tools> | ToolCallRecovery.ToolCallErrorResultPart>
    >()
  })

  test("the call and failed result are parts Effect's Prompt.fromResponseParts takes", () => {
    expect<ToolCallRecovery.ToolCallErrorCallPart>().type.toBeAssignableTo<Response.AnyPart>()
    expect<ToolCallRecovery.ToolCallErrorResultPart>().type.toBeAssignableTo<Response.AnyPart>()
    // Effect's signature does not know the error part itself (Effect ignores it at run time):
    // our alias takes the content as it is.
    expect(Prompt.fromResponseParts).type.not.toBeCallableWith([] as Content<typeof returning>[])
    expect(ToolCallRecovery.fromResponseParts).type.toBeCallableWith([] as Content<typeof returning>[])
  })

  test("toolCallErrors lists tool-call-error parts", () => {
    expect<Errors<typeof returning>>().type.toBe<Array<ToolCallRecovery.ToolCallErrorPart>>()
  })

  test("disabled resolution keeps Effect's encoded parameters mode", () => {
    const disabled = ToolCallRecovery.generateText({
      prompt: "hi",
      toolkit,
      disableToolCallResolution: true,
      unknownToolCalls: "return",
    })
    expect<Content<typeof disabled>>().type.toBe<
      | Response.Part<Tools, "encoded">
      | ToolCallRecovery.ToolCallErrorPart
      | ToolCallRecovery.ToolCallErrorCallPart
      | ToolCallRecovery.ToolCallErrorResultPart
    >()
  })
})

describe("an option value that is not statically known keeps the part", () => {
  test("a union value", () => {
    const mode = Math.random() > 0.5 ? "error" : "return"
    const response = ToolCallRecovery.generateText({ prompt: "hi", toolkit, unknownToolCalls: mode })
    expect<Errors<typeof response>>().type.toBe<Array<ToolCallRecovery.ToolCallErrorPart>>()
    expect<ToolCallRecovery.ToolCallErrorCallPart>().type.toBeAssignableTo<Content<typeof response>>()
    expect<ToolCallRecovery.ToolCallErrorResultPart>().type.toBeAssignableTo<Content<typeof response>>()
  })

  test("the option type itself", () => {
    const options: { prompt: string; unknownToolCalls: ToolCallRecovery.UnknownToolCalls } = {
      prompt: "hi",
      unknownToolCalls: "error",
    }
    const response = ToolCallRecovery.generateText(options)
    expect<"tool-call-error">().type.toBeAssignableTo<Content<typeof response>["type"]>()
  })

  test("an optional option", () => {
    const options: { prompt: string; unknownToolCalls?: ToolCallRecovery.UnknownToolCalls } = { prompt: "hi" }
    const response = ToolCallRecovery.generateText(options)
    expect<Errors<typeof response>>().type.toBe<Array<ToolCallRecovery.ToolCallErrorPart>>()
  })
})

describe("streamText", () => {
  test("default: the element type is exactly Effect's", () => {
    const ours = ToolCallRecovery.streamText({ prompt: "hi", toolkit })
    const effects = LanguageModel.streamText({ prompt: "hi", toolkit })
    expect<Stream.Success<typeof ours>>().type.toBe<Response.StreamPart<Tools, "opaque">>()
    expect<Stream.Success<typeof ours>>().type.toBe<Stream.Success<typeof effects>>()
    expect<Stream.Error<typeof ours>>().type.toBe<Stream.Error<typeof effects>>()
    expect<Stream.Services<typeof ours>>().type.toBe<Stream.Services<typeof effects>>()
    expect<"tool-call-error">().type.not.toBeAssignableTo<Stream.Success<typeof ours>["type"]>()
  })

  test('"return": the tool-call-error part joins the union', () => {
    const ours = ToolCallRecovery.streamText({ prompt: "hi", toolkit, unknownToolCalls: "return" })
    expect<Stream.Success<typeof ours>>().type.toBe<
      | Response.StreamPart<Tools, "opaque">
      | ToolCallRecovery.ToolCallErrorPart
      | ToolCallRecovery.ToolCallErrorCallPart
      | ToolCallRecovery.ToolCallErrorResultPart
    >()
  })
})

describe("options are checked", () => {
  test("only the two option values", () => {
    expect(ToolCallRecovery.generateText).type.not.toBeCallableWith({
      prompt: "hi",
      unknownToolCalls: "ignore",
    })
    expect(ToolCallRecovery.streamText).type.not.toBeCallableWith({
      prompt: "hi",
      unknownToolCalls: "ignore",
    })
  })

  test("excess properties are rejected, as by Effect", () => {
    expect(ToolCallRecovery.generateText).type.not.toBeCallableWith({
      prompt: "hi",
      unknownToolCallz: "return",
    })
  })
})

describe("the part and its schema", () => {
  test("the schema's types are the part's", () => {
    expect<typeof ToolCallRecovery.ToolCallErrorPart.Type>().type.toBe<ToolCallRecovery.ToolCallErrorPart>()
    expect<
      typeof ToolCallRecovery.ToolCallErrorPart.Encoded
    >().type.toBe<ToolCallRecovery.ToolCallErrorPartEncoded>()
  })

  test("fromResponseParts takes a response's content, with or without error parts", () => {
    expect(ToolCallRecovery.fromResponseParts).type.toBeCallableWith(
      [] as Array<Response.Part<Tools, "opaque"> | ToolCallRecovery.ToolCallErrorPart>,
    )
    expect(ToolCallRecovery.fromResponseParts).type.toBeCallableWith([] as Array<Response.StreamPart<Tools>>)
  })
})

describe("the tripwire of the stand-in (src/unknown-tool-calls/index.ts)", () => {
  // When one of these fails, Effect ships Effect-TS/effect#7574: follow the removal path written
  // at the top of src/unknown-tool-calls/index.ts.
  test("Effect's own options have no unknownToolCalls yet", () => {
    expect<
      "unknownToolCalls" extends keyof LanguageModel.GenerateTextOptions<{}> ? true : false
    >().type.toBe<false>()
  })

  test("Effect's own parts have no tool-call-error yet", () => {
    expect<"tool-call-error">().type.not.toBeAssignableTo<Response.AnyPart["type"]>()
  })
})
