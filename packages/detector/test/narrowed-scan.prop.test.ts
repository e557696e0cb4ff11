/**
 * A detector offered tools scans prose with a scanner narrowed for their names (`textScanFor`):
 * a `[` followed by a word no offered name starts with (`[keys]`, `[1]`, `[the docs]`) is no stop.
 * The narrowing never passes an opener: wherever a prose opener matches (not FAIL), the narrowed
 * scanner stops, on text built from the offered names, their `json` spellings and prefixes, other
 * words, and the characters a pythonic list and Markdown put around them.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { tablesFor, textScanFor } from "../src/compile.ts"
import { createMachine } from "../src/machine.ts"
import { matchStart } from "../src/match.ts"
import { FAIL } from "../src/pattern.ts"
import { resolveOptions } from "../src/resolve-options.ts"
import { skipNear } from "../src/skip-plain.ts"

/** Offered names: lower and upper case, digits, `_`, `-` and `.` first, one a prefix of another. */
const names = ["read_file", "read", "Task", "bash", "_go", "9lives", "-x", ".dot", "json"]
const tools = fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 })

const pieces = [
  ...names,
  ...names.map((n) => `${n}json`),
  // Openings of pythonic lists naming each (whitespace first, a `json` spelling, keyword arguments).
  ...names.flatMap((n) => [`[${n}()`, `[${n}(k=`, `[ ${n}()`, `[\t${n}json(k=`, `[${n.slice(0, 2)}`]),
  "re",
  "Ta",
  "keys",
  "the docs",
  "i",
  "1",
  "TOOL_CALLS",
  "[",
  "]",
  "(",
  ")",
  "k=",
  "=",
  ",",
  " ",
  "\t",
  "\n",
  "`",
  "x",
]
const text = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 40 }).map((p) => p.join(""))

describe("the prose scanner narrowed for the offered tools", () => {
  test.prop([tools, text], { numRuns: 1500 })("stops wherever a prose opener matches", (offered, t) => {
    const { tools: resolved, enabled } = resolveOptions({ tools: offered })
    const tables = tablesFor(undefined, enabled, resolved)
    const m = createMachine(resolved, tables, Math.max(tables.longest, 4096))
    m.buf = t
    // The whole text is here: every match decides (FAIL or a hit, never MORE).
    m.final = true
    for (let p = 0; p < t.length; p++) {
      if (matchStart(m, tables.text, p) === FAIL) continue
      for (const scanner of [m.textScan, m.textScan.quiet])
        expect(skipNear(t, p, t.length, scanner), `passed ${p} of ${JSON.stringify(t)}`).toBe(p)
    }
  })

  test("is narrowed: `[` before a word no offered name starts with is no stop", () => {
    const { tools: resolved, enabled } = resolveOptions({ tools: ["read_file", "bash"] })
    const scan = textScanFor(tablesFor(undefined, enabled, resolved), resolved)
    for (const t of ["see [keys] x", "a[1] x", "[the docs](x) x", "[Task(x) x"])
      expect(skipNear(t, 0, t.length, scan), t).toBe(t.length)
    for (const t of ["[read_file(path='a')]", "[ bash()]", "[bashjson()]"]) {
      expect(skipNear(t, 0, t.length, scan), t).toBe(0)
      // (The property's texts hold such calls: its check is made where a pythonic list opens.)
      const m = createMachine(resolved, tablesFor(undefined, enabled, resolved), 4096)
      m.buf = t
      m.final = true
      expect(matchStart(m, m.tables.text, 0), t).not.toBe(FAIL)
    }
  })
})

describe("the narrowed scanners' memo", () => {
  test.prop([fc.shuffledSubarray(["Read", "Bash", "read_file", "get_weather", "Glob"], { minLength: 1 })])(
    "the same tools in any order share one scanner",
    (tools) => {
      const { tools: resolved, enabled } = resolveOptions({ tools })
      const tables = tablesFor(undefined, enabled, resolved)
      expect(textScanFor(tables, resolved)).toBe(textScanFor(tables, [...resolved].reverse()))
    },
  )
})
