/**
 * Hostile input costs the same work per character as prose does, give or take a constant: no
 * per-push rescan of held text. Work is counted, not timed: a probe counts every character the
 * detector reads (`charCodeAt`) and every character a search runs over (`indexOf`, a regular
 * expression's `test`), while the
 * stream is fed in small deltas. A rescan of held text on every push costs the held length per
 * delta (hundreds of reads per character at the default hold of 4,096), so it fails the bound.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { OPENER_ROWS, REASONING_ROWS, TOKEN_ROWS } from "../src/format-table.ts"
import { createDetector, type DetectorOptions, formats, scan } from "../src/index.ts"
import { cuts, TOOLS } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

/** Reads per input character allowed at 4-character deltas (prose costs ~1.4; the worst marker ~22). */
const BOUND = 40

/** Every marker of the format table: openers, body literals and closers, special tokens, reasoning blocks. */
const MARKERS: readonly string[] = [
  ...new Set([
    ...[...OPENER_ROWS, ...TOKEN_ROWS].flatMap((row) => [
      ...row.literals,
      ...(row.body.kind === "tags" ? row.body.entries.map((e) => e.literal) : row.body.closers),
    ]),
    ...REASONING_ROWS.flatMap((row) => [...row.literals, ...row.close.map((c) => c.literal)]),
  ]),
]

/** Characters read (and searched over) per input character, feeding `text` in `delta`-character pushes. */
function readsPerChar(text: string, delta: number, options: DetectorOptions = {}): number {
  const detector = createDetector({ tools: TOOLS, ...options })
  const proto = String.prototype
  const { charCodeAt, indexOf } = proto
  const { test: search } = RegExp.prototype
  let reads = 0
  proto.charCodeAt = function (this: string, index: number): number {
    reads++
    return charCodeAt.call(this, index)
  }
  proto.indexOf = function (this: string, search: string, from?: number): number {
    const at = indexOf.call(this, search, from)
    reads += (at < 0 ? this.length : at) - Math.max(0, from ?? 0)
    return at
  }
  RegExp.prototype.test = function (this: RegExp, subject: string): boolean {
    const from = this.lastIndex
    const found = search.call(this, subject)
    reads += (found ? this.lastIndex : subject.length) - from
    return found
  }
  try {
    for (let i = 0; i < text.length; i += delta) detector.push(text.slice(i, i + delta))
    detector.end()
  } finally {
    proto.charCodeAt = charCodeAt
    proto.indexOf = indexOf
    RegExp.prototype.test = search
  }
  return reads / text.length
}

const repeat = (unit: string, size: number): string =>
  unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
const SIZE = 12_000

describe("hostile input: reads per character stay bounded (no per-push rescan of held text)", () => {
  test.each([
    ["one backtick run", repeat("`", SIZE)],
    [
      "backtick runs of every length",
      Array.from({ length: 150 }, (_, k) => `${"`".repeat(k + 1)} x `).join(""),
    ],
    ["a `<` flood", repeat("<", SIZE)],
    ["a `<|` flood (dozens of literals share the prefix)", repeat("<|", SIZE)],
    ["fullwidth bars", repeat("<｜", SIZE)],
    [
      "a fence of every length, nested",
      Array.from({ length: 300 }, (_, k) => `${"`".repeat(3 + (k % 40))}\n`).join(""),
    ],
    ["an opener followed by whitespace", `<tool_call>${repeat(" ", SIZE)}`],
    [
      "a JSON call followed by whitespace",
      `<tool_call>{"name": "Bash", "arguments": {}}${repeat(" \n", SIZE)}`,
    ],
    ["an unterminated name string", `<tool_call>{"name": "${repeat("a", SIZE)}`],
    ["long names, over and over", repeat(`<function=${"a".repeat(250)} `, SIZE)],
    [
      "a marker inside a possible code span, then a long backtick run",
      `\`a <tool_call> ${repeat("`", SIZE)}`,
    ],
    // A bare header naming a tool that is not offered looks ahead for its envelope's closer: the
    // candidates share one search (issue 27).
    ["bare headers naming a tool not offered, never closed", repeat("<function=x>\n<parameter=a>\n", SIZE)],
    [
      "bare invokes naming a tool not offered, never closed",
      repeat('<invoke name="x">\n<parameter name="a">1</parameter>\n', SIZE),
    ],
    // Granite's bare call at a line's start (an offered name, then `(`) is read to its close on
    // its line once, however it streams in (its lexer state is remembered between pushes).
    ["a bare call's name and `(`, over and over, never closed", repeat("read_file(", SIZE)],
    ["a bare call's name and `(`, a line each", repeat("read_file(\n", SIZE)],
    ["an unterminated string in a bare call, a line each", repeat('read_file(path="\n', SIZE)],
    ["a long bare call streaming in", `read_file(path="${"a".repeat(4000)}")\n${repeat("x ", SIZE)}`],
    ["a line of bare calls streaming in", repeat(`read_file(path="${"a".repeat(40)}"), `, SIZE)],
    [
      "long bare calls on a line, prose after",
      `${repeat(`read_file(path="${"a".repeat(600)}"), `, 3000)} and so on`,
    ],
    ["long bare calls, each with prose after it", repeat(`read_file(path="${"a".repeat(300)}") and\n`, SIZE)],
    [
      "a long prefix cut at every push",
      repeat(`<tool_call id="${"a".repeat(250)}" name="${"b".repeat(250)}`, SIZE),
    ],
  ])("%s", (_name, text) => {
    expect(readsPerChar(text, 4)).toBeLessThanOrEqual(BOUND)
  })

  test.each(MARKERS.map((m) => [m]))("every prefix of %j, repeated", (marker) => {
    const parts: string[] = []
    for (let k = 1; k <= marker.length; k++) parts.push(marker.slice(0, k).repeat(40))
    expect(readsPerChar(parts.join(""), 4)).toBeLessThanOrEqual(BOUND)
  })

  test.prop(
    [
      fc.array(fc.oneof(fc.constantFrom(...MARKERS), fc.constantFrom("`", "~", "<", " ", "\n", "｜", "a")), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.nat(),
      fc.integer({ min: 64, max: 8192 }),
    ],
    { numRuns: 40 },
  )(
    "any repeated mix of marker prefixes and hostile characters, under any hold cap",
    (units, cut, maxHoldChars) => {
      const unit = units.map((u, k) => (u.length > 1 ? u.slice(0, 1 + ((cut + k) % u.length)) : u)).join("")
      expect(readsPerChar(repeat(unit, 6_000), 4, { maxHoldChars })).toBeLessThanOrEqual(BOUND)
    },
  )

  test("a flood of a one-character opener costs what prose costs when the next character disproves it", () => {
    // `[` opens a pythonic call after prose only before a name or a space: `[[[[` and `[{[{` are
    // skipped by the scan, not matched at every `[` (matching each cost 5x the time).
    for (const unit of ["[", "[{", "[]"]) expect(readsPerChar(repeat(unit, SIZE), 4)).toBeLessThanOrEqual(4)
  })

  test("a pair no literal goes on from is skipped by its third character, not matched", () => {
    // `to` of prose is not `to=functions.`, `{ e` is not `{ "`, `</b>` in a parameter is not
    // `</parameter>`: the scan looks at the third character of a pair (matching each cost a walk).
    expect(readsPerChar(repeat("to tool top ", SIZE), 4)).toBeLessThanOrEqual(3.3)
    expect(readsPerChar(repeat("{ encoding }", SIZE), 4)).toBeLessThanOrEqual(2)
    const body = `<tool_call><function=read_file><parameter=x>${repeat("</b></i>", SIZE)}`
    expect(readsPerChar(body, 4)).toBeLessThanOrEqual(2.5)
  })

  test("a line is stopped at for a bare call only where an offered name's first letter starts it", () => {
    // Granite's `NAME(…)` line: no offered name starts with `H` or `w`, so these lines are skipped
    // like prose (2.07 reads a character when every letter stopped the scan at a line's start).
    expect(readsPerChar(repeat("Hello world, this is prose\n", SIZE), 4)).toBeLessThanOrEqual(1.65)
    expect(readsPerChar(repeat("we read it\n", SIZE), 4)).toBeLessThanOrEqual(2.2)
  })

  test("a marker held while its confirm's name grows is not read again on every push", () => {
    // The pythonic `[` and Phi-4's `functools[` before long names, cut at every push: a push that
    // only extends the name reads its own characters (4.35 and 5.32 reads a character before).
    expect(readsPerChar(`Here: ${repeat(`[${"a".repeat(250)} `, SIZE)}`, 4)).toBeLessThanOrEqual(2.8)
    expect(readsPerChar(`So ${repeat(`functools[${"f".repeat(200)} `, SIZE)}`, 4)).toBeLessThanOrEqual(3.8)
  })

  test("a confirm tries only the alternatives that can start at the character it reads", () => {
    // DeepSeek's tolerant separators make dozens of literal alternatives; each one that needs
    // another first character is skipped, not compared (5.6, 4.9 and 9.4 reads a character before).
    expect(readsPerChar(`Hi ${repeat("<｜tool▁calls▁begin｜>x ", SIZE)}`, 4)).toBeLessThanOrEqual(4)
    expect(readsPerChar(`Hi ${repeat("<｜tool▁call▁begin｜>x ", SIZE)}`, 4)).toBeLessThanOrEqual(4)
    expect(readsPerChar(`Hi ${repeat("<tool_call>x ", SIZE)}`, 4)).toBeLessThanOrEqual(8.5)
  })

  test("a tag name held as a possible XML prefix is read once, not again on every push", () => {
    // `<string`, `<https`, `</div`: a namespaced tag (`<x:invoke`) may still follow until the name
    // ends; a push that extends or ends it reads its own characters (10-11.5 reads a character before).
    expect(readsPerChar(repeat("Hi <ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF> ", SIZE), 4)).toBeLessThanOrEqual(3)
    expect(readsPerChar(repeat("x </closing_tag_name_abcdefghij> ", SIZE), 4)).toBeLessThanOrEqual(3)
    expect(readsPerChar(repeat("<a-b_c9", SIZE), 4)).toBeLessThanOrEqual(5.5)
  })

  test("every format enabled, the same bound", () => {
    const all = { formats: formats.map((f) => f.id) }
    expect(readsPerChar(repeat("<read_file><｜tool▁ca<|tool_", SIZE), 4, all)).toBeLessThanOrEqual(BOUND)
  })
})

describe("tag names held as possible XML prefixes decide as a fresh read would", () => {
  // `<name` and `</name` (names up to past the longest prefix, 32), with or without a namespace
  // colon and the rest of a namespaced literal, ended every way; whole namespaced calls among them.
  const nameChar = fc.constantFrom(..."aZ09_-xinvoke".split(""))
  const name = fc.oneof(
    fc.array(nameChar, { maxLength: 36 }).map((cs) => cs.join("")),
    fc.constantFrom("x", "antml", "https", "string", "a".repeat(32), "a".repeat(33)),
  )
  const rest = fc.constantFrom(
    "",
    ":",
    ':invoke name="read_file">',
    ":function_calls>",
    ":invoke>",
    "://a.b",
    ":i",
  )
  const end = fc.constantFrom("", ">", " ", "/>", "\n", ", ", "<", "`", "x")
  const tag = fc.tuple(fc.constantFrom("<", "</"), name, rest, end).map((parts) => parts.join(""))
  const call = fc.oneof(fc.constantFrom("x", "antml", "a-b_9"), name).map((p) => {
    const t = (s: string): string => `<${p}:${s}>`
    return `${t("function_calls")}${t('invoke name="read_file"')}${t('parameter name="path"')}a${t("/parameter")}${t("/invoke")}${t("/function_calls")}`.replace(
      new RegExp(`<${p}:/`, "g"),
      `</${p}:`,
    )
  })
  const text = fc
    .array(fc.oneof(tag, call, fc.constantFrom("Hi ", "a < b ", "\n\n", "`")), { minLength: 1, maxLength: 8 })
    .map((parts) => parts.join(""))
  test.prop([text, fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined })])(
    "cut at every position, under any hold cap",
    (input, maxHoldChars) => {
      const options = maxHoldChars === undefined ? { tools: TOOLS } : { tools: TOOLS, maxHoldChars }
      const whole = scan(input, options)
      const parts = feed([...input], options)
      expect(parts.text).toBe(whole.text)
      expect(parts.markup).toEqual(whole.markup)
    },
  )
  test.prop([text.chain((t) => fc.tuple(fc.constant(t), cuts(t.length)))])(
    "cut anywhere",
    ([input, points]) => {
      const options = { tools: TOOLS }
      const whole = scan(input, options)
      const parts = feed(splitAt(input, points), options)
      expect(parts.text).toBe(whole.text)
      expect(parts.markup).toEqual(whole.markup)
    },
  )
})

describe("hostile input: resumed decisions decide as a fresh read would", () => {
  // Runs and candidates longer than a small hold cap, cut anywhere: the resumed walk, run counts
  // and run memo must give what one read of the whole text gives.
  const piece = fc.oneof(
    fc.integer({ min: 1, max: 300 }).map((n) => "`".repeat(n)),
    fc.integer({ min: 1, max: 300 }).map((n) => "~".repeat(n)),
    fc.integer({ min: 1, max: 300 }).map((n) => " ".repeat(n)),
    fc.integer({ min: 1, max: 300 }).map((n) => "a".repeat(n)),
    fc.constantFrom(...MARKERS),
    fc.constantFrom("\n", "\n\n", "<", '"', "{", "[", "｜", "<function=Bash>", '<tool_call>{"name": "Bash"'),
  )
  const text = fc.array(piece, { minLength: 1, maxLength: 12 }).map((p) => p.join(""))
  test.prop([text.chain((t) => fc.tuple(fc.constant(t), cuts(t.length))), fc.integer({ min: 1, max: 160 })])(
    "split invariance with long runs under a small hold cap",
    ([input, points], maxHoldChars) => {
      const options = { tools: TOOLS, maxHoldChars }
      const whole = scan(input, options)
      const parts = feed(splitAt(input, points), options)
      expect(parts.text).toBe(whole.text)
      expect(parts.markup).toEqual(whole.markup)
    },
  )
})
