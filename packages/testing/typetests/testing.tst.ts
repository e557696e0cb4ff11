import type { FormatId } from "@tool-rescue/detector"
import type fc from "fast-check"
import { describe, expect, test } from "tstyche"
import {
  type CallLabel,
  type CorpusSample,
  chunked,
  corpus,
  type ExampleLabels,
  fencedExample,
  type LeakLabels,
  leakedCall,
  type ReplayHttpError,
  type ReplayReply,
  type ReplayScript,
  type ReplayServer,
  type ReplayStep,
  type ResponseLabels,
  response,
  type Sample,
  startReplayServer,
} from "../src/index.ts"
import { startReplayServer as startFromSubpath } from "../src/replay.ts"

describe("arbitraries", () => {
  test("carry typed labels", () => {
    expect(leakedCall({ tools: ["a"] })).type.toBe<fc.Arbitrary<Sample<LeakLabels>>>()
    expect(fencedExample()).type.toBe<fc.Arbitrary<Sample<ExampleLabels>>>()
    expect(response({ tools: ["a"] })).type.toBe<fc.Arbitrary<Sample<ResponseLabels>>>()
    expect(chunked("abc")).type.toBe<fc.Arbitrary<string[]>>()
  })

  test("undetermined label fields are optional booleans, formats are catalogue ids", () => {
    expect<CallLabel["opening"]>().type.toBe<boolean | undefined>()
    expect<CallLabel["complete"]>().type.toBe<boolean | undefined>()
    expect<CallLabel["format"]>().type.toBe<FormatId>()
    expect<ExampleLabels["tools"]>().type.toBe<readonly []>()
  })

  test("options are checked", () => {
    expect(leakedCall).type.not.toBeCallableWith({})
    expect(leakedCall).type.not.toBeCallableWith({ tools: ["a"], format: "not-a-format" })
    expect(leakedCall).type.toBeCallableWith({
      tools: ["a"],
      format: ["hermes", "glm"],
      variants: ["truncated"],
    })
    expect(leakedCall).type.not.toBeCallableWith({ tools: ["a"], variants: ["half"] })
  })
})

describe("corpus", () => {
  test("is typed, read-only data", () => {
    expect(corpus).type.toBe<readonly CorpusSample[]>()
    expect<CorpusSample["format"]>().type.toBe<FormatId | "other">()
  })
})

describe("replay server", () => {
  test("resolves to a server with a url, requests and close()", () => {
    expect(startReplayServer({ script: [] })).type.toBe<Promise<ReplayServer>>()
    expect(startFromSubpath).type.toBe<typeof startReplayServer>()
    expect<ReplayServer["close"]>().type.toBe<() => Promise<void>>()
  })

  test("a step is a reply or an HTTP error with a status", () => {
    expect<ReplayStep>().type.toBe<ReplayReply | ReplayHttpError>()
    expect<{ httpError: { message: "x" } }>().type.not.toBeAssignableTo<ReplayStep>()
    expect<{ httpError: { status: 500 } }>().type.toBeAssignableTo<ReplayStep>()
    expect<{ content: readonly ["a", "b"]; chunkSize: [1, 2] }>().type.toBeAssignableTo<ReplayStep>()
    expect<{ interrupt: { kind: "drop" } }>().type.not.toBeAssignableTo<ReplayStep>()
  })

  test("a script is an array or a (possibly async) function of the request", () => {
    expect<readonly ReplayStep[]>().type.toBeAssignableTo<ReplayScript>()
    expect<() => Promise<ReplayStep | undefined>>().type.toBeAssignableTo<ReplayScript>()
    expect<() => string>().type.not.toBeAssignableTo<ReplayScript>()
  })
})
