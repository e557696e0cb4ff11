/**
 * What a model writes right after a call's header instead of the tag its format puts there, taken
 * from real leaks: GLM's name followed by a stray `</arg_value>` (fw-ai-external/python-sdk#119,
 * GLM 5.2's zero-argument calls) or by a second `<tool_call>` where its first `<arg_key>` belongs
 * (getsigit/sigit#94); Qwen3-Coder's header followed by a stray `</parameter>` before its parameters
 * (signalnine/q27#24). Each generated value carries its labels: the one call it holds, its format
 * and tool, and the prose around it, which is all that is shown, whole or cut anywhere.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts, TOOLS } from "./arbitraries.ts"
import { feed, reassemble, splitAt } from "./helpers.ts"

interface Labelled {
  readonly text: string
  readonly format: "glm" | "qwen3-coder"
  readonly tool: string
  /** The prose around the call: exactly what is shown. */
  readonly visible: string
}

const before = fc.constantFrom("", "Let me check.", "I'll list the files.\n", "Sure:\n\n")
const after = fc.constantFrom("", "\nDone.", "\n\nAnything else?")
const key = fc.constantFrom("command", "path", "city")
const value = fc.constantFrom("ls -la", "/tmp/a.txt", "Paris", "a < b")

/** `<tool_call>NAME` then a stray tag, the arguments (or none), and maybe the closer. */
const glmStray: fc.Arbitrary<Labelled> = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    stray: fc.constantFrom("</arg_value>", "<tool_call>"),
    args: fc.array(fc.tuple(key, value), { maxLength: 2 }),
    closed: fc.boolean(),
    before,
    after,
  })
  .map(({ tool, stray, args, closed, before, after }) => {
    // A second `<tool_call>` stands where the first `<arg_key>` belongs: it opens the first key.
    const pairs = args.map(
      ([k, v], n) =>
        `${n === 0 && stray === "<tool_call>" ? "" : "<arg_key>"}${k}</arg_key><arg_value>${v}</arg_value>`,
    )
    const head = stray === "<tool_call>" && args.length > 0 ? "<tool_call>" : stray
    const call = `<tool_call>${tool}${head}${pairs.join("")}${closed ? "</tool_call>" : ""}`
    // Prose after an unclosed call is inside it (the stream ends there in a real leak).
    const tail = closed ? after : ""
    return { text: `${before}${call}${tail}`, format: "glm" as const, tool, visible: `${before}${tail}` }
  })

/** `<function=NAME>` (its envelope or not), a stray `</parameter>`, then its parameters and close. */
const qwenStray: fc.Arbitrary<Labelled> = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    enveloped: fc.boolean(),
    args: fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 2 }),
    before,
    after,
  })
  .map(({ tool, enveloped, args, before, after }) => {
    const params = args.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join("")
    const call = `<function=${tool}>\n</parameter>\n${params}</function>`
    const text = `${before}${enveloped ? `<tool_call>\n${call}\n</tool_call>` : call}${after}`
    return { text, format: "qwen3-coder" as const, tool, visible: `${before}${after}` }
  })

const stray = fc.oneof(glmStray, qwenStray)

describe("a stray tag right after the call's header", () => {
  test.prop([stray], { numRuns: 300 })("is one call of that tool, the prose around it shown", (v) => {
    const options = { tools: [...TOOLS] }
    const whole = scan(v.text, options)
    expect(whole.markup.map((m) => [m.format, m.toolName])).toEqual([[v.format, v.tool]])
    expect(whole.text).toBe(v.visible)
    expect(reassemble(v.text, whole)).toBe(v.text)
  })

  test.prop([stray.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 200 })(
    "the same however the stream is cut",
    ([v, points]) => {
      const options = { tools: [...TOOLS] }
      expect(feed(splitAt(v.text, points), options)).toMatchObject(scan(v.text, options))
    },
  )
})
