/**
 * A `[` glued to what ends an expression (`items[`, `f()[`, `a[0][`) subscripts it: `items[search(k=1)]`
 * is prose or code, never a pythonic call list, even when the name inside is an offered tool
 * (vLLM's pythonic tests feed `hello world[A(A=…` as text with no call). The same list after a
 * space or punctuation is a call. Each generated value carries that label and the text shown.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const TOOLS = ["search", "get_weather"]

interface Labelled {
  readonly text: string
  /** The tool of the one pythonic call, or `undefined`: a subscript, no call, all shown. */
  readonly call: string | undefined
  readonly visible: string
}

const sample: fc.Arbitrary<Labelled> = fc
  .record({
    word: fc.constantFrom("items", "hello world", "data.rows", "f()", "grid[0]", "x_1"),
    glue: fc.constantFrom("", " ", ": ", ":\n", ", "),
    tool: fc.constantFrom(...TOOLS),
    args: fc.constantFrom("k=1", "query='x'", "", "city='Paris', unit='C'"),
    after: fc.constantFrom("", " carefully.", "\nDone."),
  })
  .map(({ word, glue, tool, args, after }) => {
    const list = `[${tool}(${args})]`
    const text = `Use ${word}${glue}${list}${after}`
    return glue === ""
      ? { text, call: undefined, visible: text }
      : { text, call: tool, visible: `Use ${word}${glue}${after}` }
  })

describe("a pythonic list glued to a word", () => {
  test.prop([sample], { numRuns: 300 })(
    "is a subscript, shown; after a space or punctuation, a call",
    (v) => {
      const whole = scan(v.text, { tools: TOOLS })
      expect(whole.markup.map((m) => [m.format, m.toolName])).toEqual(
        v.call === undefined ? [] : [["pythonic", v.call]],
      )
      expect(whole.text).toBe(v.visible)
    },
  )

  test.prop([sample.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 200 })(
    "the same however the stream is cut",
    ([v, points]) => {
      expect(feed(splitAt(v.text, points), { tools: TOOLS })).toMatchObject(scan(v.text, { tools: TOOLS }))
    },
  )
})
