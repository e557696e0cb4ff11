import {
  createDetector,
  type Detector,
  type DetectorResult,
  FORMAT_IDS,
  type FormatId,
  type FormatInfo,
  formats,
  isRecoverable,
  type Markup,
  scan,
} from "@tool-rescue/detector"
import { describe, expect, test } from "tstyche"

describe("createDetector", () => {
  test("returns a Detector whose push and end return a DetectorResult", () => {
    const detector = createDetector({ tools: ["read_file"] })
    expect(detector).type.toBe<Detector>()
    expect(detector.push("x")).type.toBe<DetectorResult>()
    expect(detector.end()).type.toBe<DetectorResult>()
    expect(detector.held()).type.toBe<number>()
    expect(detector.reset()).type.toBe<void>()
  })

  test("options are all optional, and checked", () => {
    expect(createDetector()).type.toBe<Detector>()
    expect(createDetector({})).type.toBe<Detector>()
    expect(createDetector({ formats: ["hermes", "qwen3-coder"], maxHoldChars: 100 })).type.toBe<Detector>()
    expect(createDetector).type.not.toBeCallableWith({ formats: ["hermes-2"] })
    expect(createDetector).type.not.toBeCallableWith({ tools: "read_file" })
    expect(createDetector).type.not.toBeCallableWith({ maxHoldChars: "4096" })
  })

  test("push takes a string", () => {
    expect(createDetector().push).type.not.toBeCallableWith(42)
  })
})

describe("results", () => {
  test("markup is readonly and fully typed", () => {
    const { text, markup } = scan("…", { tools: ["read_file"] })
    expect(text).type.toBe<string>()
    expect(markup).type.toBe<readonly Markup[]>()
    const [m] = markup
    expect(m!.format).type.toBe<FormatId>()
    expect(m!.toolName).type.toBe<string | undefined>()
    expect(m!.start).type.toBe<number>()
  })

  test("FormatId is the catalogue's union", () => {
    expect<"qwen3-coder">().type.toBeAssignableTo<FormatId>()
    expect<"cline-xml">().type.toBeAssignableTo<FormatId>()
    expect<"qwen3">().type.not.toBeAssignableTo<FormatId>()
    expect(formats).type.toBe<readonly FormatInfo[]>()
  })

  test("FORMAT_IDS lists exactly the ids FormatId allows", () => {
    expect<(typeof FORMAT_IDS)[number]>().type.toBe<FormatId>()
    expect(FORMAT_IDS).type.toBeAssignableTo<readonly FormatId[]>()
    expect(FORMAT_IDS).type.not.toBeAssignableTo<FormatId[]>()
  })
})

describe("isRecoverable", () => {
  test("takes a Markup and an optional Policy", () => {
    const m = {} as Markup
    expect(isRecoverable(m)).type.toBe<boolean>()
    expect(isRecoverable(m, { evidence: "envelope", reasoning: "ignore" })).type.toBe<boolean>()
    expect(isRecoverable).type.not.toBeCallableWith(m, { evidence: "strict" })
    expect(isRecoverable).type.not.toBeCallableWith(m, { reasoning: "auto", evidence: undefined, extra: 1 })
  })
})
