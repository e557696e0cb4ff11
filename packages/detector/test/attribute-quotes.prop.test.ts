/**
 * MiniMax M2's `<invoke name=…>` with its name in either quote (Ollama `model/parsers/minimaxm2_test.go`
 * reads `name='get_weather'` as it reads `name="get_weather"`). Each generated call carries its
 * labels, the tool it names and the prose around it: one call of that tool, recoverable, the prose
 * shown, whole or cut anywhere.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { isRecoverable, scan } from "../src/index.ts"
import { cuts, TOOLS } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const quote = fc.constantFrom('"', "'")
const call = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    q: quote,
    pq: quote,
    before: fc.constantFrom("", "Let me check. ", "Sure:\n"),
    after: fc.constantFrom("", "\nDone checking."),
  })
  .map(({ tool, q, pq, before, after }) => ({
    tool,
    visible: `${before}${after}`,
    text: `${before}<minimax:tool_call>\n<invoke name=${q}${tool}${q}>\n<parameter name=${pq}path${pq}>a.txt</parameter>\n</invoke>\n</minimax:tool_call>${after}`,
  }))

describe("MiniMax M2: the invoke's name in either quote", () => {
  test.prop([call], { numRuns: 200 })("is one recoverable call of that tool", (v) => {
    const whole = scan(v.text, { tools: [...TOOLS] })
    expect(whole.markup.map((m) => [m.format, m.toolName, isRecoverable(m)])).toEqual([
      ["minimax-m2", v.tool, true],
    ])
    expect(whole.text).toBe(v.visible)
  })

  test.prop([call.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 100 })(
    "the same however the stream is cut",
    ([v, points]) => {
      const options = { tools: [...TOOLS] }
      expect(feed(splitAt(v.text, points), options)).toMatchObject(scan(v.text, options))
    },
  )
})
