/**
 * A call in OpenAI's shape written as text, `{"type": "function", "function": {"name": …,
 * "parameters": {…}}}` (Llama 3.2's content in vllm-project/vllm#11786): by the bare JSON call's
 * rules, a call at the start of a response, and after prose only when it names an offered tool;
 * inside Hermes' `<tool_call>` envelope, always a call, its name read from the inner object (its
 * arguments may be a string). Each generated value carries its labels: the call's format and tool
 * or none, and the text shown.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const TOOLS = ["get_current_traffic", "get_weather"]

interface Labelled {
  readonly text: string
  readonly format: "llama3-json" | "hermes"
  readonly tool: string | undefined
  readonly visible: string
}

const sample: fc.Arbitrary<Labelled> = fc
  .record({
    before: fc.constantFrom("", "Let me check.\n", "Sure: "),
    name: fc.constantFrom(...TOOLS, "not_offered"),
    key: fc.constantFrom("parameters", "arguments"),
    args: fc.constantFrom('{"location": "Sydney"}', "{}", '{"a": {"b": [1, "}"]}}'),
    space: fc.constantFrom("", " ", "\n  "),
  })
  .map(({ before, name, key, args, space: drawn }) => {
    // After prose the object opens `{"` or `{ "`, as a Llama call after prose must (a pretty-printed
    // object there is not read: the opener literals are those two).
    const space = before === "" ? drawn : drawn.trim() === "" && drawn.length <= 1 ? drawn : " "
    const call = `{${space}"type": "function",${space}"function": {"name": "${name}", "${key}": ${args}}}`
    const text = `${before}${call}`
    // At the start any name counts (it is no prose); after prose, only an offered one.
    const counts = before === "" || TOOLS.includes(name)
    return {
      text,
      format: "llama3-json" as const,
      tool: counts ? name : undefined,
      visible: counts ? before : text,
    }
  })

/** The same call in Hermes' envelope: a call whatever it names, its arguments an object or a string. */
const enveloped: fc.Arbitrary<Labelled> = fc
  .record({
    before: fc.constantFrom("", "Let me check.\n", "Sure: "),
    name: fc.constantFrom(...TOOLS, "not_offered"),
    args: fc.constantFrom('{"location": "Sydney"}', '"{\\"location\\": \\"Sydney\\"}"', "{}"),
    space: fc.constantFrom("", " ", "\n"),
  })
  .map(({ before, name, args, space }) => ({
    text: `${before}<tool_call>${space}{"type": "function", "function": {"name": "${name}", "arguments": ${args}}}${space}</tool_call>`,
    format: "hermes" as const,
    tool: name,
    visible: before,
  }))

const anyShape = fc.oneof(sample, enveloped)

describe("a call in OpenAI's shape, written as text", () => {
  test.prop([anyShape], { numRuns: 300 })("is a bare JSON call by the same rules", (v) => {
    const whole = scan(v.text, { tools: TOOLS })
    expect(whole.markup.map((m) => [m.format, m.toolName])).toEqual(
      v.tool === undefined ? [] : [[v.format, v.tool]],
    )
    expect(whole.text).toBe(v.visible)
  })

  test.prop([anyShape.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 200 })(
    "the same however the stream is cut",
    ([v, points]) => {
      expect(feed(splitAt(v.text, points), { tools: TOOLS })).toMatchObject(scan(v.text, { tools: TOOLS }))
    },
  )
})
