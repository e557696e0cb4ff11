/**
 * Pushes the state machine has nothing to decide in skip it. A marker whose confirm is cut off
 * inside a run (`[functo`, `<tool_call>` then spaces) is not matched again on every push while the
 * run only grows: the push is held as the match would hold it, and the match runs once the run
 * ends. A push inside a line of fenced or indented code is released without the fence state. An
 * HTML tag in prose (`<div>`, `<b>`) is no place a namespaced tag (`<x:invoke`) can start: the scan
 * skips it, and no opener is matched there.
 * A held marker prefix that the next delta disproves is not scanned or matched again, and the
 * next prefix the push ends in is held without the machine.
 * Counted, not timed: every pattern match the detector starts (`match` as its modules call it; its
 * own recursion is not counted), every opener match and every plain-text scan, every run of the
 * code-line states.
 */
import { describe, expect, test, vi } from "vitest"
import { createDetector, scan } from "../src/index.ts"
import * as markdown from "../src/markdown-states.ts"
import * as literals from "../src/match.ts"
import * as pattern from "../src/pattern.ts"
import * as plain from "../src/skip-plain.ts"
import { partialMarkersOf } from "./helpers.ts"

vi.mock("../src/pattern.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/pattern.ts")>()
  return { ...actual, match: vi.fn(actual.match) }
})

vi.mock("../src/markdown-states.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/markdown-states.ts")>()
  return {
    ...actual,
    stateFence: vi.fn(actual.stateFence),
    stateIndentedCode: vi.fn(actual.stateIndentedCode),
  }
})

vi.mock("../src/match.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/match.ts")>()
  return { ...actual, matchStart: vi.fn(actual.matchStart) }
})

vi.mock("../src/skip-plain.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/skip-plain.ts")>()
  return { ...actual, skipPlain: vi.fn(actual.skipPlain) }
})

const matches = vi.mocked(pattern.match)
const scans = vi.mocked(plain.skipPlain)
const starts = vi.mocked(literals.matchStart)
const codeLines = [vi.mocked(markdown.stateFence), vi.mocked(markdown.stateIndentedCode)]

/**
 * Feeds `text` to a new detector in 4-character pushes, every counter cleared first: the pushes,
 * and `shown()`, which ends the stream and gives all that was shown.
 */
function pushInFours(text: string): { pushes: number; shown: () => string } {
  const detector = createDetector({ tools: ["read_file"] })
  vi.clearAllMocks()
  let released = ""
  let pushes = 0
  for (let i = 0; i < text.length; i += 4, pushes++) released += detector.push(text.slice(i, i + 4)).text
  return { pushes, shown: () => released + detector.end().text }
}

/** Pattern matches started per push, feeding `text` in 4-character pushes; and what was shown. */
function matchesPerPush(text: string): { perPush: number; shown: string } {
  const { pushes, shown } = pushInFours(text)
  const perPush = matches.mock.calls.length / pushes
  return { perPush, shown: shown() }
}

const repeat = (unit: string, size: number): string =>
  unit.repeat(Math.ceil(size / unit.length)).slice(0, size)

describe("a confirm cut off inside a run is matched once the run ends, not on every push", () => {
  test.each([
    // Before: one match a push (1.0, 1.0, 1.0, 1.0); the run's ends leave a few.
    ["a pythonic `[` before long names", `Here: ${repeat(`[${"a".repeat(250)} `, 12_000)}`],
    ["Phi-4's `functools[` before a long name", `So ${repeat(`functools[${"f".repeat(200)} `, 12_000)}`],
    ["an opener followed by whitespace", `Then <tool_call>${repeat(" ", 12_000)}x`],
    ["a `[` followed by whitespace", `Then [${repeat(" ", 12_000)}x`],
  ])("%s", (_name, text) => {
    const { perPush, shown } = matchesPerPush(text)
    expect(perPush).toBeLessThanOrEqual(0.1)
    // What was held is decided as a whole read decides it.
    expect(shown).toBe(scan(text, { tools: ["read_file"] }).text)
  })
})

describe("a push inside a line of code is released without running the code-line states", () => {
  const line =
    "const xs: Array<number> = [1, 2, 3]; for (const x of xs) console.log('<' + x + '>') // <tool_call>"
  test.each([
    // Before: one run of the state a push (1.04, 1.00).
    ["a fenced block", `Code:\n\n\`\`\`ts\n${`${line}\n`.repeat(120)}\`\`\`\nDone.`],
    ["an indented block", `Code:\n\n${`    ${line}\n`.repeat(120)}\nDone.`],
  ])("%s", (_name, text) => {
    const { pushes, shown: end } = pushInFours(text)
    const shown = end()
    const runs = codeLines.reduce((sum, state) => sum + state.mock.calls.length, 0)
    expect(runs / pushes).toBeLessThanOrEqual(0.1)
    expect(shown).toBe(text)
  })
})

describe("HTML tags in prose are skipped by the scan, not matched as possible namespaced tags", () => {
  test.each([
    // Before: an opener match at every `<` followed by a letter (0.43 and 0.67 a push); now only
    // where the push ends inside the tag's name (it may still become `<div:invoke`).
    ["tags with attributes", `Wrap it: ${repeat('<div class="card"><b>x</b></div> ', 12_000)}`],
    ["void tags and keys", `Then ${repeat("see <br/> and <Enter> then ", 12_000)}`],
  ])("%s", (_name, text) => {
    const { pushes, shown } = pushInFours(text)
    // (0.303 since the family closers `</tool_call:…>` and `</｜DSML｜…>` are tokens: a push that
    // ends in `</` is held now.)
    expect(starts.mock.calls.length / pushes).toBeLessThanOrEqual(0.31)
    expect(shown()).toBe(text)
  })

  test("a namespaced tag after any prefix is still found, in prose and in its body", () => {
    const call =
      '<x:function_calls>\n<x:invoke name="read_file">\n<x:parameter name="path">a</x:parameter>\n</x:invoke>\n</x:function_calls>'
    const result = scan(`Reading it: <div>${call}`, { tools: ["read_file"] })
    expect(result.text).toBe("Reading it: <div>")
    expect(result.markup.map((m) => [m.format, m.toolName, m.closing])).toEqual([
      ["anthropic-xml", "read_file", true],
    ])
  })
})

describe("a held marker prefix that the next delta disproves is not matched again", () => {
  test.each([
    // The bench's per-format partial markers (every proper prefix of every marker, eight times
    // each), fullwidth-bar tokens. Before: 0.66 and 0.77 opener matches, 1.19 and 1.18 scans a push
    // (a disproved prefix was scanned and matched again, and the machine ran to hold the next one);
    // now 0.48 and 0.45, 0.67 and 0.50 (Step3's 0.59 since a push that ends in `</` is held: the
    // family closers `</tool_call:…>` and `</｜DSML｜…>` are tokens; its `</steptml:…` prefixes end so).
    ["Step3's markers", "step3"],
    ["DeepSeek-V3's markers", "deepseek-v3"],
  ] as const)("%s", (_name, format) => {
    const text = partialMarkersOf(format, 40_000)
    const { pushes, shown } = pushInFours(text)
    expect(starts.mock.calls.length / pushes).toBeLessThanOrEqual(0.6)
    expect(scans.mock.calls.length / pushes).toBeLessThanOrEqual(0.8)
    expect(shown()).toBe(scan(text, { tools: ["read_file"] }).text)
  })
})

describe("a `[` before a name no offered tool has fails the gate before the pythonic grammar runs", () => {
  test("links, indexing and bracketed words", () => {
    // Before: 0.55 pattern matches a push, and `[keys` cut off at a push's end was held; now none.
    const text = `See ${repeat("a[i] and [keys] or [the docs](x) and [1, 2] ", 12_000)}`
    const { perPush, shown } = matchesPerPush(text)
    expect(perPush).toBe(0)
    expect(shown).toBe(text)
  })

  test("an offered tool's name, or its `json`-glued spelling, still opens a call", () => {
    for (const name of ["read_file", "read_filejson"]) {
      const result = scan(`Here: [${name}(path='a')]`, { tools: ["read_file"] })
      expect(result.text).toBe("Here: ")
      expect(result.markup.map((m) => [m.format, m.toolName])).toEqual([["pythonic", "read_file"]])
    }
  })
})
