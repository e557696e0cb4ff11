/**
 * The repository's `FORMATS.md` against the one list of format ids and the format information:
 * every id has a section and a catalogue row, no section or row names an id that does not exist,
 * and each section shows the models and the example `formats` holds (the example the other tests
 * run). Links to `FORMATS.md#…` in the repository's Markdown must name one of its headings.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, test } from "vitest"
import { FORMAT_IDS, formats } from "../src/index.ts"

const ROOT = fileURLToPath(new URL("../../..", import.meta.url))
const doc = readFileSync(join(ROOT, "FORMATS.md"), "utf8")
const lines = doc.split("\n")

/** The lines of the `##` section with this title, up to the next `##` heading. */
function section(title: string): string[] {
  const start = lines.indexOf(`## ${title}`)
  if (start < 0) throw new Error(`FORMATS.md has no "## ${title}" section`)
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "))
  return lines.slice(start + 1, end < 0 ? lines.length : end)
}

/** The `###` subsections of some lines, by heading. */
function subsections(of: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of of) {
    if (line.startsWith("### ")) {
      current = []
      out.set(line.slice(4).trim(), current)
    } else current?.push(line)
  }
  return out
}

/** The content of the first fenced code block (CommonMark: the closer repeats the opener's character, at least as long). */
function firstFence(of: readonly string[]): string | undefined {
  const open = of.findIndex((line) => /^(`{3,}|~{3,})/.test(line))
  if (open < 0) return undefined
  const fence = /^(`{3,}|~{3,})/.exec(of[open]!)![1]!
  const closes = (line: string): boolean =>
    line.startsWith(fence) && new RegExp(`^\\${fence[0]}+\\s*$`).test(line)
  const close = of.findIndex((line, i) => i > open && closes(line))
  return of.slice(open + 1, close < 0 ? of.length : close).join("\n")
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const sections = subsections(section("Formats"))
const tableIds = section("Catalogue").flatMap((line) => {
  const row = /^\| \[`([^`]+)`\]\(#([^)]+)\) \|/.exec(line)
  return row === null ? [] : [{ id: row[1]!, link: row[2]! }]
})

describe("FORMATS.md", () => {
  test("has a section for every format id, in catalogue order, and none for an id that does not exist", () => {
    expect([...sections.keys()]).toEqual([...FORMAT_IDS])
  })

  test("its catalogue table lists every format id once, in order, each linked to its section", () => {
    expect(tableIds.map((row) => row.id)).toEqual([...FORMAT_IDS])
    for (const { id, link } of tableIds) expect(link).toBe(anchor(id))
  })

  describe.each(formats.map((f) => [f.id, f] as const))("%s", (id, f) => {
    const body = sections.get(id) ?? []

    test("names the models `formats` names", () => {
      expect(body).toContain(`- **Models:** ${f.models}`)
    })

    test("shows the example `formats` holds, in its first code block", () => {
      expect(firstFence(body)).toBe(f.example)
    })

    test("says when it is off by default", () => {
      expect(body.some((line) => line.includes("**Off by default:**"))).toBe(!f.enabledByDefault)
    })
  })

  test("every link inside it, and every FORMATS.md#… link in the READMEs, names a heading", () => {
    const anchors = new Set(lines.filter((l) => /^#{1,6} /.test(l)).map((l) => anchor(l.replace(/^#+ /, ""))))
    const links = [...doc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => ({ file: "FORMATS.md", target: m[1]! }))
    for (const file of linkingFiles()) {
      const text = readFileSync(join(ROOT, file), "utf8")
      for (const m of text.matchAll(/FORMATS\.md#([\w-]+)/g)) links.push({ file, target: m[1]! })
    }
    expect(links.filter((l) => !anchors.has(l.target))).toEqual([])
    expect(links.length).toBeGreaterThan(FORMAT_IDS.length)
  })
})

describe("the READMEs", () => {
  test('every "N formats" they say is the number of format ids ("N default formats": those on by default), and none says "N more formats"', () => {
    const counts = linkingFiles().flatMap((file) =>
      [...readFileSync(join(ROOT, file), "utf8").matchAll(/\b(\d+) ([a-z]+ )?formats\b/g)].map((m) => ({
        file,
        said: m[0],
      })),
    )
    const byDefault = formats.filter((f) => f.enabledByDefault).length
    const right = [
      `${FORMAT_IDS.length} formats`,
      `${FORMAT_IDS.length} catalogued formats`,
      `${byDefault} default formats`,
    ]
    expect(counts.filter((count) => !right.includes(count.said))).toEqual([])
    // The detector's README says it, so the check has something to check.
    expect(counts.map((count) => count.file)).toContain(join("packages", "detector", "README.md"))
  })
})

/**
 * The root's Markdown files and each package's README (the inputs `turbo.json` gives this test,
 * so an edit to any of them runs it again).
 */
function linkingFiles(): string[] {
  const readmes = readdirSync(join(ROOT, "packages"))
    .map((pkg) => join("packages", pkg, "README.md"))
    .filter((file) => existsSync(join(ROOT, file)))
  return [...readdirSync(ROOT).filter((name) => name.endsWith(".md")), ...readmes]
}
