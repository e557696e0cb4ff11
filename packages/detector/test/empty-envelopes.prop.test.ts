/**
 * An envelope opened and closed with no call in it: a model that called nothing (LFM2's
 * `<|tool_call_start|>[]<|tool_call_end|>`, vLLM `test_empty_tool_call_block`) or looped on its
 * envelope (MiniMax M2.7's `<minimax:tool_call></minimax:tool_call>`). Each generated value carries
 * its labels: the format, and the prose around the envelope, which is all that is shown. The
 * envelope is one markup, opened, closed and complete, naming no tool, however the stream is cut.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import type { FormatId } from "../src/index.ts"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, reassemble, splitAt } from "./helpers.ts"

interface Labelled {
  readonly text: string
  readonly format: FormatId
  /** The prose around the envelope: exactly what is shown. */
  readonly visible: string
}

const space = fc.constantFrom("", " ", "\n", "\n\n")
/** The envelopes, and what may stand between their tokens when no call does. */
const envelope = fc.oneof(
  fc.tuple(space, fc.constantFrom("", "[]", "[ ]", "[\n]"), space).map(([a, list, b]) => ({
    format: "lfm2" as const,
    body: `<|tool_call_start|>${a}${list}${b}<|tool_call_end|>`,
  })),
  space.map((a) => ({ format: "minimax-m2" as const, body: `<minimax:tool_call>${a}</minimax:tool_call>` })),
)
const before = fc.constantFrom("", "Nothing to call.", "开篇。\n", "Sure:\n\n")
const after = fc.constantFrom("", "\nDone.", " 续写。", "\n\nAnything else?")

const empty: fc.Arbitrary<Labelled> = fc
  .tuple(before, envelope, after)
  .map(([b, e, a]) => ({ text: `${b}${e.body}${a}`, format: e.format, visible: `${b}${a}` }))

describe("an envelope with no call in it", () => {
  test.prop([empty], { numRuns: 300 })("is one complete markup of its format, naming no tool", (v) => {
    const options = { tools: ["get_weather"] }
    const whole = scan(v.text, options)
    expect(whole.markup).toHaveLength(1)
    expect(whole.markup[0]).toMatchObject({
      format: v.format,
      toolName: undefined,
      opening: true,
      closing: true,
      complete: true,
      structured: false,
    })
    expect(whole.text).toBe(v.visible)
    expect(reassemble(v.text, whole)).toBe(v.text)
  })

  test.prop([empty.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 200 })(
    "the same however the stream is cut",
    ([v, points]) => {
      const options = { tools: ["get_weather"] }
      expect(feed(splitAt(v.text, points), options)).toMatchObject(scan(v.text, options))
    },
  )
})
