import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { OPENER_ROWS, TOKEN_ROWS } from "../src/format-table.ts"
import { createDetector, formats, scan } from "../src/index.ts"
import {
  cuts,
  denseMarkdown,
  document,
  fenced,
  htmlBlock,
  indented,
  leak,
  MARKERS,
  malformed,
  mention,
  TOOLS,
} from "./arbitraries.ts"
import { chars, feed, mergeSpans, outside, reassemble, splitAt } from "./helpers.ts"

const options = { tools: TOOLS }

/** Every marker of the format table, whole or cut, between bits of prose and code: what a push may hold. */
const ALL_MARKERS: readonly string[] = [
  ...new Set(
    [...OPENER_ROWS, ...TOKEN_ROWS].flatMap((row) => [
      ...row.literals,
      ...(row.body.kind === "tags" ? row.body.entries.map((e) => e.literal) : row.body.closers),
    ]),
  ),
]
const markerSoup: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...ALL_MARKERS),
      fc.tuple(fc.constantFrom(...ALL_MARKERS), fc.nat()).map(([m, k]) => m.slice(0, 1 + (k % m.length))),
      fc.constantFrom("to ", "t", "<", "[", "`", "\n", " ", "read_file", '{"name": "Bash"', "x", "｜"),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(""))
const withCuts = document.chain((text) => fc.tuple(fc.constant(text), cuts(text.length)))

/** Feeding `chunks` (a partition of `text`) gives the same text and markup as one `scan`. */
function expectSplitInvariant(text: string, chunks: readonly string[]): void {
  const whole = scan(text, options)
  const parts = feed(chunks, options)
  expect(parts.text).toBe(whole.text)
  expect(parts.markup).toEqual(whole.markup)
  expect(parts.withheld).toEqual(whole.withheld)
}

describe("properties", () => {
  test.prop([withCuts])(
    "split invariance: any partition gives the same text and markup as scan",
    ([text, points]) => expectSplitInvariant(text, splitAt(text, points)),
  )

  test.prop([document])(
    "split invariance: one code unit at a time (splits every surrogate pair and marker)",
    (text) => expectSplitInvariant(text, chars(text)),
  )

  test.prop([fc.array(document, { minLength: 2, maxLength: 8 }).map((d) => d.join("\n"))])(
    "split invariance on long text: skipping with indexOf stops where the per-character scan does",
    (text) => expectSplitInvariant(text, chars(text)),
  )

  // The pushes that hold something (a `<`, a backtick run, a tag's prefix) are decided without the
  // machine where they can be: in deltas of every size, each fast path must decide as the machine
  // does on the whole text.
  test.prop([denseMarkdown, fc.integer({ min: 1, max: 9 }), cuts(400)])(
    "split invariance on dense Markdown: fixed-size deltas, single characters and any partition",
    (text, size, points) => {
      const fixed: string[] = []
      for (let i = 0; i < text.length; i += size) fixed.push(text.slice(i, i + size))
      expectSplitInvariant(text, fixed)
      expectSplitInvariant(text, chars(text))
      expectSplitInvariant(text, splitAt(text, points))
    },
  )

  test.prop([fc.constantFrom(...MARKERS), fc.nat(), document])(
    "split invariance: a cut inside every marker",
    (marker, at, rest) => {
      const text = `${rest}${marker}${rest}`
      const cut = rest.length + (at % marker.length)
      expectSplitInvariant(text, [text.slice(0, cut), text.slice(cut)])
    },
  )

  test.prop([withCuts])(
    "nothing lost: every character is shown or lies in the span of a reported markup, exactly once",
    ([text, points]) => {
      const result = feed(splitAt(text, points), options)
      const spans = [...result.markup].sort((a, b) => a.start - b.start)
      let withheld = 0
      let cursor = 0
      for (const m of spans) {
        expect(m.start).toBeGreaterThanOrEqual(cursor)
        expect(m.end).toBeGreaterThan(m.start)
        withheld += m.end - m.start
        cursor = m.end
      }
      expect(result.text.length + withheld).toBe(text.length)
      expect(reassemble(text, result)).toBe(text)
      // What was withheld, push by push, is exactly the spans of the markup reported.
      const spanPairs = mergeSpans(
        [],
        spans.flatMap((m) => [m.start, m.end]),
      )
      expect(result.withheld).toEqual(spanPairs)
    },
  )

  test.prop([fc.array(mention, { minLength: 1, maxLength: 6 }).map((m) => m.join(" ")), cuts(400)])(
    "prose is shown: headers, tags and tool names mentioned without a call's structure are released unchanged, under any chunking",
    (text, points) => {
      expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
      expect(feed(chars(text), options)).toMatchObject({ text, markup: [] })
    },
  )

  test.prop([fc.oneof(leak, malformed), fc.constantFrom("    ", "\t", "     "), cuts(300)])(
    "markup inside an indented code block is never flagged",
    (call, by, points) => {
      const text = indented(call, by)
      expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
    },
  )

  test.prop([
    fc.oneof(leak, malformed).filter((l) => !/<\/(pre|code|script|style|textarea)>/i.test(l)),
    fc.constantFrom("pre", "code", "script", "style", "textarea", "PRE"),
    cuts(300),
  ])("markup inside an HTML block of kind 1 is never flagged", (call, tag, points) => {
    const text = htmlBlock(call, tag)
    expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
  })

  test.prop([withCuts])(
    "lossless: visible text and withheld spans reassemble the input",
    ([text, points]) => {
      expect(reassemble(text, feed(splitAt(text, points), options))).toBe(text)
    },
  )

  test.prop([withCuts])(
    "in stream order: after every push, the text shown so far is the decided input (all but the last held() characters) without its withheld spans",
    ([text, points]) => {
      // Markup inside reasoning is reported once its answer is known, after the text that follows
      // it was released: its offsets, not the moment of its report, place it.
      const spans = scan(text, options).markup
      const detector = createDetector(options)
      let shown = ""
      let received = 0
      for (const chunk of splitAt(text, points)) {
        shown += detector.push(chunk).text
        received += chunk.length
        expect(shown).toBe(outside(text, spans, received - detector.held()))
      }
    },
  )

  test.prop([fc.oneof(document, markerSoup).chain((text) => fc.tuple(fc.constant(text), cuts(text.length)))])(
    "what is held depends on the input received, not on its chunking (every push's fast paths hold as the machine does)",
    ([text, points]) => {
      const detector = createDetector(options)
      let received = 0
      for (const chunk of splitAt(text, points)) {
        detector.push(chunk)
        received += chunk.length
        const whole = createDetector(options)
        whole.push(text.slice(0, received))
        expect(detector.held()).toBe(whole.held())
      }
    },
  )

  test.prop([withCuts, fc.integer({ min: 64, max: 300 })])(
    "bounded hold-back: never more than maxHoldChars (plus half a surrogate pair)",
    ([text, points], maxHoldChars) => {
      const detector = createDetector({ ...options, maxHoldChars })
      for (const chunk of splitAt(text, points)) {
        detector.push(chunk)
        expect(detector.held()).toBeLessThanOrEqual(maxHoldChars + 1)
      }
    },
  )

  test.prop([withCuts])(
    "bounded hold-back: a cap below the longest marker is raised to it (under 64)",
    ([text, points]) => {
      const detector = createDetector({ ...options, maxHoldChars: 1 })
      for (const chunk of splitAt(text, points)) {
        detector.push(chunk)
        expect(detector.held()).toBeLessThanOrEqual(64 + 1)
      }
    },
  )

  test.prop([fc.string({ unit: fc.constantFrom("a", "b", " ", ".", ",", "\n", "é", "z") }), cuts(200)])(
    "prose without trigger characters is never held",
    (text, points) => {
      const detector = createDetector(options)
      // (At the very start a lone `a` may still become Harmony's stripped `analysis`.)
      expect(detector.push("Ok, ").text).toBe("Ok, ")
      for (const chunk of splitAt(text, points)) {
        expect(detector.push(chunk).text).toBe(chunk)
        expect(detector.held()).toBe(0)
      }
    },
  )

  test.prop([leak, fc.constantFrom("", "Here is an example:\n", "text ")])(
    "markup inside a fenced code block is never flagged",
    (call, before) => {
      const text = `${before}${fenced(call)}after`
      expect(scan(text, options)).toMatchObject({ text, markup: [] })
    },
  )

  test.prop([leak.filter((l) => !l.includes("`")), fc.integer({ min: 1, max: 3 })])(
    "markup inside an inline code span is never flagged",
    (call, ticks) => {
      const run = "`".repeat(ticks)
      const text = `See ${run}${call}${run} for the format.`
      expect(scan(text, options)).toMatchObject({ text, markup: [] })
    },
  )

  test.prop([document, document])("reset() gives the same results as a fresh detector", (first, second) => {
    const detector = createDetector(options)
    detector.push(first)
    detector.reset()
    const a = detector.push(second)
    const b = detector.end()
    const fresh = scan(second, options)
    expect(a.text + b.text).toBe(fresh.text)
    expect([...a.markup, ...b.markup]).toEqual(fresh.markup)
  })

  test.prop([fc.constantFrom(...MARKERS), fc.integer({ min: 1, max: 3000 }), fc.nat(), fc.nat()])(
    "never throws on thousands of repeated partial markers, and stays split-invariant",
    (marker, times, cut, drop) => {
      const partial = marker.length > 1 ? marker.slice(0, 1 + (drop % (marker.length - 1))) : marker
      const text = partial.repeat(times)
      const at = cut % (text.length + 1)
      expectSplitInvariant(text, [text.slice(0, at), text.slice(at)])
      expect(reassemble(text, scan(text, options))).toBe(text)
    },
  )

  test.prop([fc.string({ unit: "binary", maxLength: 400 }), cuts(400)])(
    "never throws on arbitrary code units",
    (text, points) => {
      const result = feed(splitAt(text, points), { ...options, formats: formats.map((f) => f.id) })
      expect(reassemble(text, result)).toBe(text)
    },
  )
})
