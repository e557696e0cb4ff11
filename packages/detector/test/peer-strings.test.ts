/**
 * The peers' own parser test strings (vLLM, SGLang, llama.cpp, Ollama) and real leaks from public
 * bug reports, as one table (`peer-strings.ts`). Each row is judged on its shape, not on a case:
 * whole, under random splits (fast-check over the cut points) and one code unit at a time, and as
 * its fenced, inline-code and indented-code twin, which is an example and never flagged.
 */
import { test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { isRecoverable, type Markup, scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { chars, feed, reassemble, splitAt } from "./helpers.ts"
import { PEER_STRINGS, type PeerString } from "./peer-strings.ts"

const label = (m: Markup): string => `${m.format}:${m.toolName ?? "?"}`
const named = (row: PeerString): string[] =>
  row.markup.map((m) => m.slice(m.indexOf(":") + 1)).filter((name) => name !== "?")
const optionsOf = (row: PeerString) => ({ tools: row.tools ?? named(row) })

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0
  let run = 0
  for (const c of text) {
    run = c === char ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/**
 * The row's text as code: a fence longer than any backtick run in it (DeepSeek's payload holds
 * ```` ```json ````), an inline code span (for text with no blank line: a blank line ends the
 * paragraph and so the span), and an indented code block.
 */
function twins(row: PeerString): [string, string][] {
  const { text } = row
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1))
  const tick = "`".repeat(longestRun(text, "`") + 1)
  const out: [string, string][] = [
    ["fenced", `Like this:\n\n${fence}\n${text}\n${fence}\n\nDone.`],
    ["indented", `Like this:\n\n${text.replace(/^/gm, "    ")}\n\nDone.`],
  ]
  if (!/\n[ \t]*\n/.test(text) && row.inlineTwin !== false)
    out.push(["inline code", `Write ${tick} ${text} ${tick} exactly.`])
  return out
}

describe.each(PEER_STRINGS.map((row, i) => [`#${i + 1} ${row.source}`, row] as const))("%s", (_, row) => {
  const options = optionsOf(row)
  const whole = scan(row.text, options)

  test("whole: the expected markup, nothing lost", () => {
    expect(whole.markup.map(label)).toEqual(row.markup)
    expect(whole.markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)).toEqual(
      row.recover ?? named(row),
    )
    expect(reassemble(row.text, whole)).toBe(row.text)
    if (row.markup.length === 0) expect(whole.text).toBe(row.text)
    if (row.visible !== undefined) expect(whole.text).toBe(row.visible)
  })

  test("one code unit at a time: the same", () => {
    expect(feed(chars(row.text), options)).toMatchObject({ text: whole.text, markup: whole.markup })
  })

  test.prop([cuts(row.text.length)], { numRuns: 20 })("any split: the same", (points) => {
    expect(feed(splitAt(row.text, points), options)).toMatchObject({ text: whole.text, markup: whole.markup })
  })

  test.each(twins(row))("its %s twin is an example, shown unchanged", (_, text) => {
    expect(scan(text, options)).toMatchObject({ text, markup: [] })
  })
})
