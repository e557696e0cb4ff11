/**
 * The `/v6` entry (`LanguageModelV3Middleware`, for ai@6) run on V3 models. ai@6 itself is not
 * installed here, so the middleware's hooks are called the way ai@6's `wrapLanguageModel` calls
 * them (`{ doStream, doGenerate, params, model }`), on `MockLanguageModelV3`.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider"
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { wrapLanguageModel } from "ai"
import { convertArrayToReadableStream, convertReadableStreamToArray, MockLanguageModelV3 } from "ai/test"
import { describe, expect, test } from "vitest"
import { toolCallRecoveryMiddleware as rootMiddleware } from "../src/index.ts"
import { toolCallRecoveryMiddleware } from "../src/v6.ts"
import { generateReply, QWEN_LEAK, QWEN_PROSE, replyParts, usage } from "./fixtures.ts"

const leak = { text: [QWEN_LEAK.slice(0, 30), QWEN_LEAK.slice(30)] }
const call = { calls: [{ toolName: "Glob", input: { pattern: "*.md" } }] }

// V4 parts of these replies use no V4-only part type, so they are valid V3 parts.
const v3Stream = (reply: Parameters<typeof replyParts>[0]) => ({
  stream: convertArrayToReadableStream(replyParts(reply) as LanguageModelV3StreamPart[]),
})

const params: LanguageModelV3CallOptions = {
  prompt: [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "List the markdown files." }] },
  ],
  tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
}

describe("@tool-rescue/ai-sdk/v6", () => {
  test("is a v3 middleware", () => {
    expect(toolCallRecoveryMiddleware().specificationVersion).toBe("v3")
  })

  test("wrapStream recovers on a V3 model", async () => {
    const model = new MockLanguageModelV3({ doStream: [v3Stream(leak), v3Stream(call)] })
    const middleware = toolCallRecoveryMiddleware()
    const result = await middleware.wrapStream!({
      doStream: () => model.doStream(params),
      doGenerate: () => model.doGenerate(params),
      params,
      model,
    })
    const parts = await convertReadableStreamToArray(result.stream)
    const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")
    expect(text).toBe(QWEN_PROSE)
    expect(
      parts.filter((p) => p.type === "tool-call").map((p) => p.type === "tool-call" && p.toolName),
    ).toEqual(["Glob"])
    expect(model.doStreamCalls).toHaveLength(2)
    const system = model.doStreamCalls[1]?.prompt[0]
    expect(system?.role === "system" && system.content).toMatch(/^sys\n\n/)
  })

  test("wrapGenerate rejects with the branded error on a second malformed V3 response", async () => {
    const result = { ...generateReply(leak), usage: usage(1, 1) } as LanguageModelV3GenerateResult
    const model = new MockLanguageModelV3({ doGenerate: [result, result] })
    const middleware = toolCallRecoveryMiddleware()
    const error = await middleware.wrapGenerate!({
      doStream: () => model.doStream(params),
      doGenerate: () => model.doGenerate(params),
      params,
      model,
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(model.doGenerateCalls).toHaveLength(2)
  })
})

describe("the AI SDK 7 entry run by AI SDK 6", () => {
  // ai@6's wrapLanguageModel hands the hooks the V3 model itself, as these calls do.
  const hooks = (model: MockLanguageModelV3) => ({
    doStream: () => model.doStream(params),
    doGenerate: () => model.doGenerate(params),
    params,
    model,
  })
  const v4Hooks = (model: MockLanguageModelV3) =>
    hooks(model) as unknown as Parameters<NonNullable<ReturnType<typeof rootMiddleware>["wrapStream"]>>[0]

  test("wrapStream and wrapGenerate throw one error naming the /v6 entry, before any model call", async () => {
    const model = new MockLanguageModelV3({ doStream: [v3Stream(leak)] })
    const middleware = rootMiddleware()
    for (const run of [
      () => middleware.wrapStream!(v4Hooks(model)),
      () => middleware.wrapGenerate!(v4Hooks(model)),
    ]) {
      expect(run).toThrow(TypeError)
      expect(run).toThrow(/specification version "v3".*"@tool-rescue\/ai-sdk\/v6"/)
    }
    expect(model.doStreamCalls).toHaveLength(0)
    expect(model.doGenerateCalls).toHaveLength(0)
  })

  test("ai@7's wrapLanguageModel adapts a V3 model to V4, so the root entry accepts it there", async () => {
    const v3 = new MockLanguageModelV3({ doStream: [v3Stream(leak), v3Stream(call)] })
    const model = wrapLanguageModel({ model: v3, middleware: rootMiddleware() })
    const result = await model.doStream(params as Parameters<typeof model.doStream>[0])
    const parts = await convertReadableStreamToArray(result.stream)
    expect(parts.filter((p) => p.type === "tool-call")).toHaveLength(1)
  })
})
