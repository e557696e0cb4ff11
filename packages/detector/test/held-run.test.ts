/**
 * A marker whose confirm is cut off inside a run (`[functo`, `<tool_call>` then spaces) is not
 * matched again on every push while the run only grows: the push is held as the match would hold
 * it, and the match runs once the run ends. Counted, not timed: every pattern match the detector
 * starts (`match` as its modules call it; its own recursion is not counted).
 */
import { describe, expect, test, vi } from "vitest"
import { createDetector, scan } from "../src/index.ts"
import * as pattern from "../src/pattern.ts"

vi.mock("../src/pattern.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/pattern.ts")>()
  return { ...actual, match: vi.fn(actual.match) }
})

const matches = vi.mocked(pattern.match)

/** Pattern matches started per push, feeding `text` in 4-character pushes; and what was shown. */
function matchesPerPush(text: string): { perPush: number; shown: string } {
  const detector = createDetector({ tools: ["read_file"] })
  matches.mockClear()
  let shown = ""
  let pushes = 0
  for (let i = 0; i < text.length; i += 4, pushes++) shown += detector.push(text.slice(i, i + 4)).text
  const perPush = matches.mock.calls.length / pushes
  shown += detector.end().text
  return { perPush, shown }
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
