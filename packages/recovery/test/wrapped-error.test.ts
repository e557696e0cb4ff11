import { describe, expect, test } from "vitest"
import { isToolCallRecoveryError, ToolCallRecoveryError } from "../src/index.ts"

const ours = () =>
  new ToolCallRecoveryError({
    code: "repeated-markup",
    rounds: 2,
    markup: [{ round: 0, format: "hermes", toolName: "read_file", inReasoning: false, complete: true }],
  })

/** The shape of LangChain's `MiddlewareError.wrap`: a new error with our name, message and cause. */
function wrap(error: Error): Error {
  const wrapper = new Error(error.message, { cause: error })
  wrapper.name = error.name
  return wrapper
}

test("our error says it is not retryable, for retry helpers that read isRetryable; not in logs or JSON", () => {
  const error = ours()
  expect(error.isRetryable).toBe(false)
  expect(Object.keys(error)).not.toContain("isRetryable")
  expect(JSON.stringify(error)).not.toContain("isRetryable")
})

describe("isToolCallRecoveryError on a framework's wrapper of ours", () => {
  test("a wrapper named ToolCallRecoveryError whose cause is ours passes, with ours' fields", () => {
    const cause = ours()
    const wrapper = wrap(cause)
    expect(isToolCallRecoveryError(wrapper)).toBe(true)
    if (!isToolCallRecoveryError(wrapper)) return
    expect(wrapper.code).toBe("repeated-markup")
    expect(wrapper.rounds).toBe(2)
    expect(wrapper.markup).toBe(cause.markup)
    expect(wrapper.isRetryable).toBe(false)
    expect(ToolCallRecoveryError.isInstance(wrapper)).toBe(true)
    // Nothing new in logs or JSON.
    expect(Object.keys(wrapper)).toEqual(Object.keys(wrap(ours())))
  })

  test("a wrapper of another name with ours' message passes (the OpenAI SDK's stream helpers)", () => {
    const cause = ours()
    const wrapper = new Error(cause.message, { cause })
    expect(isToolCallRecoveryError(wrapper) && wrapper.code).toBe("repeated-markup")
  })

  test("wrappers nested (one per middleware) pass", () => {
    const wrapper = wrap(wrap(ours()))
    expect(ToolCallRecoveryError.isInstance(wrapper) && wrapper.code).toBe("repeated-markup")
  })

  test("not a wrapper of ours: another name, another cause, own fields, frozen, a cycle", () => {
    const unlike = new Error("Something else failed.", { cause: ours() })
    expect(isToolCallRecoveryError(unlike)).toBe(false)

    const impostor = new Error("x", { cause: new Error("y") })
    impostor.name = "ToolCallRecoveryError"
    expect(isToolCallRecoveryError(impostor)).toBe(false)

    const withCode = Object.assign(wrap(ours()), { code: "ECONNRESET" })
    expect(isToolCallRecoveryError(withCode)).toBe(false)
    expect(withCode.code).toBe("ECONNRESET")

    expect(isToolCallRecoveryError(Object.freeze(wrap(ours())))).toBe(false)

    const cyclic = new Error("c")
    cyclic.name = "ToolCallRecoveryError"
    cyclic.cause = cyclic
    expect(isToolCallRecoveryError(cyclic)).toBe(false)
  })
})
