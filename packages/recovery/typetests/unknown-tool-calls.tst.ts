import type {
  ReturnsToolCallErrors,
  ToolCallError,
  ToolCallErrorPartFor,
  ToolCallErrorsFor,
  UnknownToolCalls,
} from "@tool-rescue/recovery"
import { describe, expect, test } from "tstyche"

// The shape an adapter gives its functions: the option's type is inferred, defaulting to "error".
declare function generate<O extends UnknownToolCalls = "error">(options: {
  readonly unknownToolCalls?: O
}): { readonly toolCallErrors: ToolCallErrorsFor<O> }

type TextPart = { readonly type: "text"; readonly text: string }
type ErrorPart = { readonly type: "tool-call-error" } & ToolCallError
type Parts<O> = TextPart | ToolCallErrorPartFor<O, ErrorPart>

describe("ToolCallErrorsFor", () => {
  test("the default option yields Array<never>", () => {
    expect(generate({}).toolCallErrors).type.toBe<Array<never>>()
    expect(generate({ unknownToolCalls: "error" }).toolCallErrors).type.toBe<Array<never>>()
    expect<ToolCallErrorsFor<undefined>>().type.toBe<Array<never>>()
  })

  test('"return" yields Array<ToolCallError>', () => {
    expect(generate({ unknownToolCalls: "return" }).toolCallErrors).type.toBe<Array<ToolCallError>>()
  })

  test("a non-literal option keeps the errors", () => {
    const option = Math.random() > 0.5 ? "error" : "return"
    expect(generate({ unknownToolCalls: option }).toolCallErrors).type.toBe<Array<ToolCallError>>()
    const wide: UnknownToolCalls = option
    expect(generate({ unknownToolCalls: wide }).toolCallErrors).type.toBe<Array<ToolCallError>>()
    expect<ToolCallErrorsFor<string>>().type.toBe<Array<ToolCallError>>()
  })

  test("only the two option values are accepted", () => {
    expect(generate).type.not.toBeCallableWith({ unknownToolCalls: "ignore" })
  })
})

describe("ToolCallErrorPartFor", () => {
  test("the default part union is exactly the framework's own", () => {
    expect<Parts<"error">>().type.toBe<TextPart>()
    expect<Parts<undefined>>().type.toBe<TextPart>()
  })

  test('"return" and non-literal options add the error part', () => {
    expect<Parts<"return">>().type.toBe<TextPart | ErrorPart>()
    expect<Parts<"error" | "return">>().type.toBe<TextPart | ErrorPart>()
    expect<Parts<string>>().type.toBe<TextPart | ErrorPart>()
  })
})

describe("ReturnsToolCallErrors", () => {
  test("false only for the default", () => {
    expect<ReturnsToolCallErrors<"error">>().type.toBe<false>()
    expect<ReturnsToolCallErrors<undefined>>().type.toBe<false>()
    expect<ReturnsToolCallErrors<"return">>().type.toBe<true>()
    expect<ReturnsToolCallErrors<UnknownToolCalls>>().type.toBe<true>()
  })
})

describe("ToolCallError", () => {
  test("params is the provider's text, not parsed arguments", () => {
    expect<ToolCallError["params"]>().type.toBe<string>()
    expect<ToolCallError>().type.toBe<{
      readonly name: string
      readonly params: string
      readonly error: string
    }>()
  })
})
