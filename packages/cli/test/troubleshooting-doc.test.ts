import { readFileSync, writeFileSync } from "node:fs"
import { expect, it } from "vitest"
import { parserTable, serverSections } from "../src/probe/troubleshooting-doc.ts"

const PATH = new URL("../../../docs/troubleshooting.md", import.meta.url)

/** The page with each generated block replaced by what the doctor's table says now. */
function regenerate(page: string): string {
  const blocks: Readonly<Record<string, string>> = { servers: serverSections(), parsers: parserTable() }
  return page.replace(
    /(<!-- generated:(\w+) [^>]*-->\n)[\s\S]*?(<!-- \/generated:\2 -->)/g,
    (_, open: string, name: string, close: string) => `${open}${blocks[name] ?? ""}\n${close}`,
  )
}

it("docs/troubleshooting.md says what the doctor's table says (TOOL_RESCUE_UPDATE_DOCS=1 rewrites it)", () => {
  const page = readFileSync(PATH, "utf8")
  const expected = regenerate(page)
  if (process.env.TOOL_RESCUE_UPDATE_DOCS === "1") writeFileSync(PATH, expected)
  expect(page.match(/<!-- generated:/g)).toHaveLength(2)
  expect(page).toBe(expected)
})
