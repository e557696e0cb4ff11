/**
 * Kimi K2's call id: `functions.NAME:N`, `NAME:N`, or a bare counter `N` (vLLM
 * `tests/tool_parsers/test_kimi_k2_tool_parser.py`: the parser infers a counter's tool from the
 * arguments). Each generated section carries its labels: the names its ids give (none for a
 * counter), every call withheld.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const TOOLS = ["get_weather", "read_file", "f0"]

const id = fc.oneof(
  fc.tuple(fc.constantFrom(...TOOLS), fc.nat(9), fc.boolean()).map(([tool, n, prefix]) => ({
    id: `${prefix ? "functions." : ""}${tool}:${n}`,
    name: tool as string | undefined,
  })),
  fc.nat(99).map((n) => ({ id: String(n), name: undefined as string | undefined })),
)

const section = fc
  .tuple(
    fc.array(id, { minLength: 1, maxLength: 3 }),
    fc.constantFrom("", "Let me check. "),
    fc.constantFrom("", " "),
  )
  .map(([ids, before, sp]) => ({
    text: `${before}<|tool_calls_section_begin|>${ids
      .map(
        (c) =>
          `<|tool_call_begin|>${sp}${c.id} <|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>`,
      )
      .join("")}<|tool_calls_section_end|>`,
    names: ids.map((c) => c.name),
    visible: before,
  }))

describe("Kimi K2 call ids", () => {
  test.prop([section], { numRuns: 300 })(
    "name the tool a call id holds, and none for a bare counter",
    (v) => {
      const whole = scan(v.text, { tools: TOOLS })
      expect(whole.markup.map((m) => [m.format, m.toolName])).toEqual(v.names.map((n) => ["kimi-k2", n]))
      expect(whole.text).toBe(v.visible)
    },
  )

  test.prop([section.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 150 })(
    "the same however the stream is cut",
    ([v, points]) => {
      expect(feed(splitAt(v.text, points), { tools: TOOLS })).toMatchObject(scan(v.text, { tools: TOOLS }))
    },
  )
})
