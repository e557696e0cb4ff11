/**
 * The far search of `skipPlain` (one regular expression over the trigger characters with their
 * followers, letter literals riding on their anchors) never passes a position that matters, and
 * stops only where the table loop would. Checked against the table loop itself (`skipNear`), on
 * the compiled prose scanners and on a scanner whose literals cover the riding cases (an anchor
 * that is a trigger, one that is not, a literal inside another's letters, a literal that starts
 * with a space, letters only).
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { tablesFor } from "../src/compile.ts"
import { resolveOptions } from "../src/resolve-options.ts"
import { makeScanner, type Scanner, type SearchMemo, skipNear, skipPlain } from "../src/skip-plain.ts"

const { tools, enabled } = resolveOptions({ tools: ["read_file"] })
const prose = tablesFor(undefined, enabled, tools).textScan

const riding = makeScanner(
  [
    "function<",
    "functools[",
    "to=functions.",
    "function call{",
    "call",
    "un x<",
    " y<",
    "<tool_call>",
    ">>>",
    "]<",
    '{"',
  ],
  { lineStarts: [60, 65] },
  "open",
)

/** Where a letter literal starts at `p`, or a proper prefix of one ends the text there. */
function letterLiteralAt(text: string, p: number, scanner: Scanner): boolean {
  return scanner.words.some(
    (w) => text.startsWith(w, p) || (text.length - p < w.length && w.startsWith(text.slice(p))),
  )
}

/** Must the scan stop at `p`: a stop of the table loop at a character that is no letter, or a letter literal? */
function matters(text: string, p: number, scanner: Scanner): boolean {
  const c = text.charCodeAt(p)
  const letter = c >= 97 && c <= 122
  return (!letter && skipNear(text, p, p + 1, scanner) === p) || letterLiteralAt(text, p, scanner)
}

/** Text made of the scanners' literals, their prefixes, and characters around them. */
const pieces = [
  ...new Set([
    ...riding.words,
    "<tool_call>",
    "[TOOL_CALLS]",
    ">>>",
    "]<",
    '{"',
    "<|python_tag|>",
    "<｜tool▁calls▁begin｜>",
    "func",
    "to=",
    "call",
    "<",
    ">",
    "[",
    "]",
    "{",
    "=",
    "`",
    "\n",
    "\n\n",
    " ",
    "a",
    "f",
    "t",
    "x",
    "A",
    "1",
    "<div>",
    "<x:invoke",
    // XML prefixes as the far search looks ahead for them: closing, long (the bound is 32), odd characters.
    "</",
    "x-1_:",
    "antml:",
    "a".repeat(31),
    "a".repeat(33),
    ":",
    // Third characters: `<te` and `<sl` of HTML beside `<tool_call>` and `<seed:`.
    "<te",
    "<sl",
    "< ",
  ]),
]
const text = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 80 }).map((p) => p.join(""))

describe("skipPlain's far search stops where it must, and only where the table loop would", () => {
  test.prop([text, fc.nat(), fc.constantFrom(prose, prose.quiet, riding, riding.quiet)], { numRuns: 2000 })(
    "from any start",
    (t, n, scanner) => {
      const start = n % t.length
      // A memo already made over this text: the scan goes straight to the far search.
      const memo: SearchMemo = { searchedText: "", byChars: undefined }
      skipPlain(t, t.length - 1, scanner, memo)
      memo.searchedText = t
      const at = skipPlain(t, start, scanner, memo)
      for (let p = start; p < at; p++)
        expect(matters(t, p, scanner), `passed ${p} of ${JSON.stringify(t)}`).toBe(false)
      if (at < t.length) expect(skipNear(t, at, at + 1, scanner)).toBe(at)
    },
  )
})
