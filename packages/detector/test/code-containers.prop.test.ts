/**
 * Code blocks inside containers. In a list item (CommonMark §5.2) a fence or an HTML block of
 * kind 1 may open on the item's own marker line (`- ```json`) or on a line indented to the item's
 * content, however deep the list; in a blockquote (§5.1) a fence's lines all carry the quote's
 * markers. What such a block holds is an example, never a call; the block's end is found, so a
 * call after it still is one.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts, leak, malformed, TOOLS } from "./arbitraries.ts"
import { chars, feed, splitAt } from "./helpers.ts"

const options = { tools: TOOLS }

/** The longest run of `c` in `text`. */
function longestRun(text: string, c: string): number {
  let best = 0
  let run = 0
  for (const x of text) {
    run = x === c ? run + 1 : 0
    best = Math.max(best, run)
  }
  return best
}

/** A block of code holding `inner`, as its lines: a fence (closed or not) or an HTML block. */
const codeBlock = fc
  .tuple(
    fc.oneof(leak, malformed),
    fc.constantFrom("`", "~", "pre", "code", 'PRE class="x"'),
    fc.constantFrom("", "json", "xml title=a"),
    fc.nat({ max: 2 }),
    fc.constantFrom("closed", "longer", "unclosed", "trailing spaces"),
  )
  .filter(([inner, kind]) => kind.length > 1 || !/<\/(pre|code)>/i.test(inner))
  .map(([inner, kind, info, extra, close]) => {
    if (kind.length > 1) {
      const tag = kind.split(" ")[0]!.toLowerCase()
      const lines = [`<${kind}>`, ...inner.split("\n"), ...(close === "unclosed" ? [] : [`</${tag}>`])]
      return { lines, closed: close !== "unclosed" }
    }
    // Longer than any run of its character inside: the inner text never closes it.
    const n = Math.max(3, longestRun(inner, kind) + 1) + extra
    const closer = {
      closed: kind.repeat(n),
      longer: kind.repeat(n + 1),
      unclosed: undefined,
      "trailing spaces": `${kind.repeat(n)}  `,
    }[close]
    const lines = [
      `${kind.repeat(n)}${info}`,
      ...inner.split("\n"),
      ...(closer === undefined ? [] : [closer]),
    ]
    return { lines, closed: closer !== undefined }
  })

/** List item markers (their length is the content's column). */
const marker = fc.constantFrom("- ", "* ", "+ ", "1. ", "10) ", "-  ")

/** A code block placed in a list item: on its marker line, or after a blank line, nested or not. */
const inListItem = fc
  .tuple(codeBlock, marker, marker, fc.constantFrom("marker line", "after a blank line", "nested"))
  .map(([{ lines, closed }, outer, inner, where]) => ({ doc: place(lines, outer, inner, where), closed }))

/** `lines` in a list item: on its marker line, after a blank line, or in a nested item. */
function place(lines: readonly string[], outer: string, inner: string, where: string): string {
  const pad = (n: number) => " ".repeat(n)
  // Continuation lines are indented to the item's content column; with a negative `by` the first
  // line stands on the marker line, after the marker.
  const under = (by: number) =>
    lines.map((line, k) => (line === "" || (k === 0 && by < 0) ? line : pad(Math.abs(by)) + line))
  if (where === "marker line") return `Steps:\n\n${outer}${under(-outer.length).join("\n")}\nDone.`
  if (where === "after a blank line") return `${outer}Write:\n\n${under(outer.length).join("\n")}\n`
  const at = outer.length
  return `${outer}a\n${pad(at)}${inner}b\n\n${under(at + inner.length).join("\n")}\n`
}

describe("code in list items (CommonMark §5.2)", () => {
  test.prop([inListItem, fc.boolean(), cuts(400)])(
    "markup inside a fence or an HTML block of a list item is never flagged, under any chunking and line end",
    ({ doc }, crlf, points) => {
      const text = crlf ? doc.replace(/\n/g, "\r\n") : doc
      expect(scan(text, options)).toMatchObject({ text, markup: [] })
      expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
      expect(feed(chars(text), options)).toMatchObject({ text, markup: [] })
    },
  )
})

describe("after a list item's code block", () => {
  const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
  test.prop([inListItem.filter(({ closed }) => closed), cuts(400)])(
    "its closing line ends it: a call at the margin after the list is flagged",
    ({ doc }, points) => {
      const text = `${doc}\nOk.\n\n${call}`
      const found = feed(splitAt(text, points), options).markup.map((m) => [m.toolName, m.start, m.end])
      expect(found).toEqual([["read_file", text.length - call.length, text.length]])
    },
  )
})

/** A fence in a blockquote (CommonMark §5.1): every line of it carries the quote's markers. */
const inBlockquote = fc
  .tuple(
    codeBlock.filter(({ lines }) => /^[`~]/.test(lines[0]!)),
    fc.constantFrom("> ", ">", " > ", "> > ", ">> "),
    fc.constantFrom("", "Quoted:\n", "> Quoted:\n>\n"),
  )
  .map(([{ lines, closed }, prefix, before]) => ({
    doc: `${before}${lines.map((line) => prefix + line).join("\n")}\n`,
    closed,
  }))

describe("code in blockquotes (CommonMark §5.1)", () => {
  test.prop([inBlockquote, fc.boolean(), cuts(400)])(
    "markup inside a fence in a blockquote is never flagged, under any chunking and line end",
    ({ doc }, crlf, points) => {
      const text = crlf ? doc.replace(/\n/g, "\r\n") : doc
      expect(scan(text, options)).toMatchObject({ text, markup: [] })
      expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
      expect(feed(chars(text), options)).toMatchObject({ text, markup: [] })
    },
  )

  const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
  test.prop([inBlockquote, fc.constantFrom("\n", "\nOk.\n"), cuts(400)])(
    "the quote's end ends its fence (no lazy line): a call after it is flagged",
    ({ doc }, between, points) => {
      const text = `${doc}${between}${call}`
      const found = feed(splitAt(text, points), options).markup.map((m) => [m.toolName, m.start, m.end])
      expect(found).toEqual([["read_file", text.length - call.length, text.length]])
    },
  )

  test("a call quoted outside a fence stays a call (a blockquote is prose)", () => {
    const text = `> ${call.replace(/\n/g, "\n> ")}`
    expect(scan(text, options).markup.map((m) => m.toolName)).toEqual(["read_file"])
  })
})
