import {
  defaultInstruction,
  isToolCallRecoveryError,
  type RecoveryEvent,
  ToolCallRecoveryError,
} from "@tool-rescue/recovery"
import { describe, expect, test } from "vitest"
import {
  appendInstruction,
  classifyToolCall,
  isRetryRequest,
  resolvePlacement,
  resolveRecoveryOptions,
  toolCallError,
} from "../src/adapter.ts"
import { emitEvent } from "../src/emit-event.ts"
import { resolveInstruction } from "../src/instruction.ts"
import { unknownToolMessage } from "../src/unknown-tool-calls.ts"

const markup = {
  format: "hermes",
  toolName: "read_file",
  offered: true,
  opening: true,
  closing: true,
  structured: true,
  complete: true,
  inReasoning: false,
  answerFollows: false,
  start: 0,
  end: 10,
} as const

describe("resolveRecoveryOptions", () => {
  test("the policy's defaults", () => {
    expect(resolveRecoveryOptions()).toMatchObject({
      evidence: "structure",
      reasoning: "auto",
      maxRecoveries: 1,
      instructionPlacement: "system",
    })
  })

  test("invalid values throw (API misuse)", () => {
    expect(() => resolveRecoveryOptions({ maxRecoveries: 1.5 })).toThrow(RangeError)
    expect(() => resolveRecoveryOptions({ maxRecoveries: Number.NaN })).toThrow(RangeError)
    // @ts-expect-error — not a policy value
    expect(() => resolveRecoveryOptions({ evidence: "vibes" })).toThrow(TypeError)
    // @ts-expect-error — not a policy value
    expect(() => resolveRecoveryOptions({ reasoning: "sometimes" })).toThrow(TypeError)
    // @ts-expect-error — not a function
    expect(() => resolveRecoveryOptions({ onEvent: "log" })).toThrow(TypeError)
    // @ts-expect-error — not a function
    expect(() => resolveRecoveryOptions({ persistFailed: true })).toThrow(TypeError)
    expect(() => resolveRecoveryOptions({ maxHoldChars: 0 })).toThrow(RangeError)
  })
})

describe("instruction", () => {
  test("the default says no action occurred, asks for structured calls, and forbids repeating done work", () => {
    const text = defaultInstruction({ round: 1, markup: [markup], tools: ["read_file"] })
    expect(text).toMatch(/No action occurred/)
    expect(text).toMatch(/structured tool-call format/)
    expect(text).toMatch(
      /Tool results already present in the conversation are complete: do not repeat those actions/,
    )
    expect(text).toContain("read_file")
  })

  test("the default names only offered tools, each once", () => {
    const text = defaultInstruction({
      round: 1,
      markup: [markup, markup, { ...markup, toolName: "evil" }],
      tools: ["read_file"],
    })
    expect(text.match(/read_file/g)).toHaveLength(1)
    expect(text).not.toContain("evil")
  })

  test("resolveInstruction: default, string, function", () => {
    const context = { round: 2, markup: [markup], tools: ["read_file"] }
    expect(resolveInstruction(undefined, context)).toBe(defaultInstruction(context))
    expect(resolveInstruction({ instruction: "Fixed." }, context)).toBe("Fixed.")
    expect(resolveInstruction({ instruction: (c) => `r${c.round}` }, context)).toBe("r2")
    // @ts-expect-error — must return a string
    expect(() => resolveInstruction({ instruction: () => 42 }, context)).toThrow(TypeError)
  })

  test("isRetryRequest finds the mark of every default instruction, in text, a body or its JSON", () => {
    const base = { round: 1, markup: [markup], tools: ["read_file", "bash"] }
    const variants = [
      defaultInstruction(base),
      defaultInstruction({ ...base, truncated: true }),
      defaultInstruction({ ...base, announced: "bash" }),
      defaultInstruction({ ...base, markup: [{ ...markup, toolName: "readFile" }] }),
    ]
    // Four different texts, one mark.
    expect(new Set(variants).size).toBe(4)
    for (const instruction of variants) {
      const merged = appendInstruction("You are terse.", instruction)
      const body = {
        messages: [
          { role: "system", content: merged },
          { role: "user", content: "Read a.ts" },
        ],
      }
      expect(isRetryRequest(instruction)).toBe(true)
      expect(isRetryRequest(body)).toBe(true)
      expect(isRetryRequest(JSON.stringify(body))).toBe(true)
    }
    // A first request, the text of the malformed response, a custom instruction: no mark.
    expect(isRetryRequest({ messages: [{ role: "user", content: "Read a.ts" }] })).toBe(false)
    expect(isRetryRequest("<function=read_file>\n</function>")).toBe(false)
    expect(isRetryRequest(resolveInstruction({ instruction: "Use real tool calls." }, base))).toBe(false)
    expect(isRetryRequest(undefined)).toBe(false)
  })

  test("appendInstruction: after a blank line, or alone when the text is empty", () => {
    expect(appendInstruction("You are terse.", "USE REAL CALLS")).toBe("You are terse.\n\nUSE REAL CALLS")
    expect(appendInstruction("", "USE REAL CALLS")).toBe("USE REAL CALLS")
  })

  test("resolvePlacement", () => {
    expect(resolvePlacement(undefined)).toBe("system")
    expect(resolvePlacement({ instructionPlacement: "user" })).toBe("user")
    // @ts-expect-error — not a placement
    expect(() => resolvePlacement({ instructionPlacement: "assistant" })).toThrow(TypeError)
    // One check for both entry points: the same error for the same value.
    const message = 'tool-rescue: instructionPlacement must be "system" or "user", got "assistant"'
    // @ts-expect-error — not a placement
    expect(() => resolvePlacement({ instructionPlacement: "assistant" })).toThrow(message)
    // @ts-expect-error — not a placement
    expect(() => resolveRecoveryOptions({ instructionPlacement: "assistant" })).toThrow(message)
    // @ts-expect-error — not a placement
    expect(() => resolvePlacement({ instructionPlacement: null })).toThrow(TypeError)
  })
})

describe("events", () => {
  test("emitEvent delivers and swallows listener errors", () => {
    const seen: RecoveryEvent[] = []
    emitEvent({ onEvent: (e) => seen.push(e) }, { type: "recovery-succeeded", round: 1 })
    expect(seen).toEqual([{ type: "recovery-succeeded", round: 1 }])
    expect(() =>
      emitEvent(
        {
          onEvent: () => {
            throw new Error("boom")
          },
        },
        { type: "recovery-succeeded", round: 1 },
      ),
    ).not.toThrow()
    expect(() => emitEvent(undefined, { type: "recovery-succeeded", round: 1 })).not.toThrow()
  })
})

describe("unknown tool calls", () => {
  test("classification is exact", () => {
    expect(classifyToolCall("read_file", ["read_file"])).toBe("offered")
    expect(classifyToolCall("read_file", new Set(["read_file"]))).toBe("offered")
    expect(classifyToolCall("Read_File", ["read_file"])).toBe("unknown")
    expect(classifyToolCall("read_file ", ["read_file"])).toBe("unknown")
    expect(classifyToolCall("x", [])).toBe("unknown")
  })

  test("the error value keeps the provider's argument text unchanged", () => {
    const params = '{ "path" :"/etc/passwd",\n"extra": [1,2] '
    const error = toolCallError("cat", params, ["read_file", "bash"])
    expect(error).toEqual({ name: "cat", params, error: unknownToolMessage("cat", ["read_file", "bash"]) })
    expect(error.params).toBe(params)
    expect(error.error).toContain("read_file, bash")
    expect(unknownToolMessage("x", [])).toMatch(/No tools are available/)
  })
})

describe("ToolCallRecoveryError", () => {
  test("carries code, rounds, markup and cause", () => {
    const cause = new Error("db")
    const error = new ToolCallRecoveryError({
      code: "persist-failed",
      rounds: 1,
      markup: [{ round: 0, format: "hermes", toolName: "read_file", inReasoning: false, complete: true }],
      cause,
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe("ToolCallRecoveryError")
    expect(error.code).toBe("persist-failed")
    expect(error.cause).toBe(cause)
    expect(error.message).toContain("round 0: hermes read_file")
    expect(isToolCallRecoveryError(error)).toBe(true)
  })

  test("is recognised across duplicate installs, by brand and not by instanceof", async () => {
    // A second copy of the module: a different class, the same Symbol.for brand.
    const copy = (await import(
      // @ts-expect-error — a query string makes the module load again
      "../src/tool-call-recovery-error.ts?duplicate"
    )) as typeof import("../src/tool-call-recovery-error.ts")
    expect(copy.ToolCallRecoveryError).not.toBe(ToolCallRecoveryError)
    const foreign = new copy.ToolCallRecoveryError({ code: "repeated-markup", rounds: 2, markup: [] })
    expect(foreign instanceof ToolCallRecoveryError).toBe(false)
    expect(ToolCallRecoveryError.isInstance(foreign)).toBe(true)
    expect(
      copy.ToolCallRecoveryError.isInstance(
        new ToolCallRecoveryError({ code: "aborted", rounds: 1, markup: [] }),
      ),
    ).toBe(true)
  })

  test("isInstance rejects look-alikes", () => {
    for (const value of [
      undefined,
      null,
      42,
      "x",
      new Error("x"),
      { code: "repeated-markup", rounds: 1, markup: [] },
    ]) {
      expect(ToolCallRecoveryError.isInstance(value)).toBe(false)
    }
  })
})
