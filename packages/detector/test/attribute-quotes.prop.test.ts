/**
 * A call's name attribute in either quote: MiniMax M2's `<invoke name=…>` (Ollama
 * `model/parsers/minimaxm2_test.go` reads `name='get_weather'` as it reads `name="get_weather"`) and
 * MiniCPM's `<function name=…>` (SGLang `minicpm4_xml_detector.py` reads `name=['"]…['"]`). Each
 * generated call carries its labels, its format, the tool it names and the prose around it: one
 * recoverable call of that tool, the prose shown, whole or cut anywhere.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { isRecoverable, scan } from "../src/index.ts"
import { cuts, TOOLS } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const quote = fc.constantFrom('"', "'")
const render = {
  "minimax-m2": (tool: string, q: string, pq: string) =>
    `<minimax:tool_call>\n<invoke name=${q}${tool}${q}>\n<parameter name=${pq}path${pq}>a.txt</parameter>\n</invoke>\n</minimax:tool_call>`,
  minicpm5: (tool: string, q: string, pq: string) =>
    `<function name=${q}${tool}${q}><param name=${pq}path${pq}>a.txt</param></function>`,
} as const
const call = fc
  .record({
    format: fc.constantFrom("minimax-m2" as const, "minicpm5" as const),
    tool: fc.constantFrom(...TOOLS),
    q: quote,
    pq: quote,
    before: fc.constantFrom("", "Let me check. ", "Sure:\n"),
    after: fc.constantFrom("", "\nDone checking."),
  })
  .map(({ format, tool, q, pq, before, after }) => ({
    format,
    tool,
    visible: `${before}${after}`,
    text: `${before}${render[format](tool, q, pq)}${after}`,
  }))

describe("a call's name attribute in either quote", () => {
  test.prop([call], { numRuns: 300 })("is one recoverable call of that tool", (v) => {
    const whole = scan(v.text, { tools: [...TOOLS] })
    expect(whole.markup.map((m) => [m.format, m.toolName, isRecoverable(m)])).toEqual([
      [v.format, v.tool, true],
    ])
    expect(whole.text).toBe(v.visible)
  })

  test.prop([call.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 150 })(
    "the same however the stream is cut",
    ([v, points]) => {
      const options = { tools: [...TOOLS] }
      expect(feed(splitAt(v.text, points), options)).toMatchObject(scan(v.text, options))
    },
  )
})
