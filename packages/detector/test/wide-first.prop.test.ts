/**
 * Literals that start with a non-ASCII character (DeepSeek's DSML envelope with `‹`, U+2039, in
 * place of its `<`: `‹｜DSML｜ calls>`, zed-industries/zed#59503). The prose scan stops at their
 * first character, in the table loop and the far search alike, and nowhere else because of them
 * (ASCII text stops where it did without them); the detector withholds and reports such an
 * envelope however the stream is cut.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { formats } from "../src/index.ts"
import { makeScanner, type SearchMemo, skipNear, skipPlain } from "../src/skip-plain.ts"
import { feed, splitAt } from "./helpers.ts"

const ascii = ["<tool_call>", "[TOOL_CALLS]", "function<", "<｜tool▁calls▁begin｜>", '{"']
const wide = ["‹｜DSML｜calls>", "«call»"]
const lines = { lineStarts: [60] }
const plain = makeScanner(ascii, lines, "open")
const withWide = makeScanner([...ascii, ...wide], lines, "open")

const piece = fc.constantFrom(
  ...ascii,
  ...wide,
  "‹",
  "«",
  "‹｜",
  "｜",
  "中文",
  "😀",
  "<",
  "[",
  "`",
  "\n",
  " ",
  "a",
  "f",
  "<div>",
)
const text = fc.array(piece, { minLength: 1, maxLength: 60 }).map((p) => p.join(""))

/** Every stop of `scan` over `t`, from 0 (each next scan starts after the last stop). */
function stopsOf(t: string, scan: (t: string, i: number) => number): number[] {
  const out: number[] = []
  for (let i = scan(t, 0); i < t.length; i = scan(t, i + 1)) out.push(i)
  return out
}

const near = (scanner: typeof plain) => (t: string, i: number) => skipNear(t, i, t.length, scanner)
const far = (scanner: typeof plain) => {
  const memo: SearchMemo = { searchedText: "", byChars: undefined }
  return (t: string, i: number) => {
    // The far search (what a long chunk takes), not the table loop it starts with.
    memo.searchedText = t
    return skipPlain(t, i, scanner, memo)
  }
}

describe("a literal's non-ASCII first character", () => {
  test.prop([text], { numRuns: 1000 })("stops the table loop and the far search alike", (t) => {
    const stops = stopsOf(t, near(withWide))
    for (let p = 0; p < t.length; p++) {
      const c = t.charCodeAt(p)
      if (c === 0x2039 || c === 0xab) expect(stops, `${p} of ${JSON.stringify(t)}`).toContain(p)
    }
    expect(stopsOf(t, far(withWide))).toEqual(stops)
  })

  test.prop([text], { numRuns: 1000 })("adds no stop anywhere else", (t) => {
    const without = new Set(stopsOf(t, near(plain)))
    for (const p of stopsOf(t, near(withWide))) {
      const c = t.charCodeAt(p)
      if (c !== 0x2039 && c !== 0xab) expect(without.has(p), `${p} of ${JSON.stringify(t)}`).toBe(true)
    }
  })
})

const dsml = formats.find((f) => f.id === "deepseek-dsml")!
/** The format's example with its envelope opener's `<` written `‹`. */
const angled = dsml.example.replace(/^</, "‹")

describe("DSML written with ‹", () => {
  test.prop(
    [
      fc.constantFrom("", "Sure.\n\n", "Let me check `x < y` first: ", "中文 ‹quote› here. "),
      fc.constantFrom("", "\n\nDone.", " ok"),
      fc.array(fc.nat(), { maxLength: 12 }),
    ],
    { numRuns: 300 },
  )("is withheld and reported however the stream is cut", (before, after, points) => {
    const input = before + angled + after
    const result = feed(
      splitAt(
        input,
        points.map((p) => p % (input.length + 1)),
      ),
      {
        tools: [dsml.exampleTool],
      },
    )
    expect(result.text).toBe(before + after)
    expect(result.markup.map((m) => [m.format, m.toolName])).toEqual([["deepseek-dsml", dsml.exampleTool]])
  })
})
