/**
 * Granite's bare Python calls, generated: an offered tool's call with arbitrary keyword arguments
 * (strings with quotes, escapes and brackets, nested lists and dicts) at the answer's start or a
 * line's, then either the line's end or prose on the same line. The first is a call whatever
 * follows on later lines; the second is prose, shown whole. Either way the answer is the same
 * however the stream is cut, and the shown text and the withheld spans make up the input.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, reassemble, splitAt } from "./helpers.ts"

const TOOLS = ["read_file", "list_files", "get_weather", "search_web"]
const options = { tools: TOOLS }

/** A Python value: a string in either quote (escapes, brackets and the other quote inside), a number, a list or a dict. */
const value: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
    fc.string({ maxLength: 12 }).map(
      (s) =>
        `'${s
          .replace(/\\/g, "\\\\")
          .replace(/'/g, "\\'")
          .replace(/[\r\n]/g, " ")}'`,
    ),
    fc.integer().map(String),
    fc.constantFrom("None", "True", "False", "'a)b'", '"[x"', "'}'"),
    fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
    fc.array(tie("value"), { maxLength: 2 }).map((items) => `(${items.join(", ")},)`),
    fc
      .array(fc.tuple(fc.string({ maxLength: 6 }), tie("value")), { maxLength: 2 })
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(", ")}}`),
  ),
})).value

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/)
/** `NAME(k=v, …)` naming an offered tool. */
const oneCall: fc.Arbitrary<{ tool: string; text: string }> = fc
  .tuple(fc.constantFrom(...TOOLS), fc.array(fc.tuple(key, value), { maxLength: 3 }))
  .map(([tool, args]) => ({ tool, text: `${tool}(${args.map(([k, v]) => `${k}=${v}`).join(", ")})` }))
/** One call, or a few on the line with commas between (`a(x=1), b()`). */
const call: fc.Arbitrary<{ tools: string[]; text: string }> = fc
  .tuple(fc.array(oneCall, { minLength: 1, maxLength: 3 }), fc.constantFrom(", ", ",", " , "))
  .map(([calls, comma]) => ({ tools: calls.map((c) => c.tool), text: calls.map((c) => c.text).join(comma) }))

/** Prose on the call's line: blanks, then a word or a mark that neither a next call nor a `]` starts. */
const sameLineProse = fc
  .tuple(fc.constantFrom("", " ", "  ", "\t"), fc.stringMatching(/^[A-Za-z.;:!?'"-][^\n\r]{0,30}$/))
  .map(([blank, words]) => blank + words)

/** What later lines hold: prose, with no bare call of an offered tool on them. */
const laterLines = fc.stringMatching(/^(\n[A-Z][a-z ,.]{0,30}){0,2}$/)

/** Before the call: nothing (the answer's start) or a line of prose. */
const before = fc.constantFrom("", "Sure, let me check.\n", "One moment.\n\n")

describe("bare pythonic calls", () => {
  test.prop([before, call, fc.constantFrom("", " ", "\t "), laterLines, cuts(200)])(
    "a call that is its line is withheld and named, the rest shown, under any split",
    (pre, c, blank, later, points) => {
      const text = `${pre}${c.text}${blank}${later}`
      const whole = scan(text, options)
      expect(whole.markup.map((m) => `${m.format}:${m.toolName}`)).toEqual(c.tools.map((t) => `granite:${t}`))
      expect(whole.markup[0]).toMatchObject({ start: pre.length, complete: true })
      expect(whole.markup.at(-1)).toMatchObject({ end: pre.length + c.text.length, complete: true })
      expect(whole.text).toBe(`${pre}${blank}${later}`)
      expect(reassemble(text, whole)).toBe(text)
      expect(feed(splitAt(text, points), options)).toMatchObject({ text: whole.text, markup: whole.markup })
    },
  )

  test.prop([before, call, sameLineProse, laterLines, cuts(200)])(
    "a call with prose after it on its line is prose: shown whole, nothing withheld, under any split",
    (pre, c, prose, later, points) => {
      const text = `${pre}${c.text}${prose}${later}`
      const r = feed(splitAt(text, points), options)
      expect(r.markup).toEqual([])
      expect(r.withheld).toEqual([])
      expect(r.text).toBe(text)
    },
  )
})
