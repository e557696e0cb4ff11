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

describe("a line left of a list item's content ends the item's fence or HTML block (§5.2)", () => {
  // A fence's or an HTML block's lines are never lazy continuation lines (laziness is for paragraph
  // text only): a non-blank line indented less than the item's content is not in the item, so the
  // item ends, and the block with it. Checked against micromark (CommonMark 0.31).
  const call = '<tool_call>\n{"name":"bash","arguments":{"cmd":"ls"}}\n</tool_call>\n'
  const indent = (text: string, n: number) =>
    text
      .split("\n")
      .map((line) => (line === "" ? line : " ".repeat(n) + line))
      .join("\n")
  test.each([
    ["on the marker line", `- \`\`\`\n${call}`, 1],
    ["after a code line", `Steps:\n- \`\`\`\n  code\n${call}`, 1],
    ["after a blank line (CRLF)", `- \`\`\`\r\n\r\n  x\r\n${call.replace(/\n/g, "\r\n")}`, 1],
    ["left of a nested item's content, in the outer item", `- a\n  - \`\`\`\n    x\n${indent(call, 2)}`, 1],
    ["indented to the item's content: in the fence", `- \`\`\`\n${indent(call, 2)}`, 0],
    ["after a blank line, indented to the content", `- \`\`\`\n\n${indent(call, 2)}`, 0],
    ["indented to a nested item's content", `- a\n  - \`\`\`\n    x\n${indent(call, 4)}`, 0],
    // The list ended at `foo` (a line the prose scan skips): the fence is not in an item, and
    // a less indented line is in it.
    ["in a fence after the list ended", `- a\n\nfoo\n  \`\`\`\n  x\n${indent(call, 1)}`, 0],
    ["in a fence at the margin after the list ended", `- a\n\nfoo\n\`\`\`\n${call}`, 0],
    // Strictly a fence of its own (§5.2), but models close an item's fence at the margin: a closer.
    ["after a closing fence at the margin", `1. Run:\n   \`\`\`bash\n   ls\n\`\`\`\n${call}`, 1],
    ["after an item's HTML block", `- <pre>\n${call}`, 1],
    [
      "after a blank line in an item's HTML block (CRLF)",
      `- <pre>\r\n\r\n  x\r\n${call.replace(/\n/g, "\r\n")}`,
      1,
    ],
    ["left of a nested item's HTML block, in the outer item", `- a\n  - <pre>\n    x\n${indent(call, 2)}`, 1],
    ["in an item's HTML block, indented to the content", `- <pre>\n${indent(call, 2)}`, 0],
    ["in an HTML block at the margin after an item (no lazy line)", `- a\n<pre>\n${call}`, 0],
  ])("%s", (_, text, n) => {
    expect(scan(text, { tools: ["bash"] }).markup).toHaveLength(n)
    expect(feed(chars(text), { tools: ["bash"] }).markup).toHaveLength(n)
  })

  /** An item's fence or HTML block left open (its closer dropped), then a call left of the content. */
  const leftOfItem = fc
    .tuple(
      codeBlock,
      marker,
      marker,
      fc.constantFrom("marker line", "after a blank line", "nested"),
      fc.nat(),
    )
    .map(([{ lines, closed }, outer, inner, where, by]) => {
      const open = closed ? lines.slice(0, -1) : lines // (an HTML block's last line: its closing tag)
      const doc = place(open, outer, inner, where).replace(/\nDone\.$/, "\n")
      const content = where === "nested" ? outer.length + inner.length : outer.length
      // At most three columns in (a call opens a line only there), left of the content.
      return { doc, column: by % Math.min(content, 4) }
    })

  test.prop([leftOfItem, fc.boolean(), cuts(400)])(
    "a call on it is flagged exactly once, under any chunking and line end",
    ({ doc, column }, crlf, points) => {
      const tail = `${" ".repeat(column)}<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>`
      const nl = (s: string) => (crlf ? s.replace(/\n/g, "\r\n") : s)
      const text = nl(doc + tail)
      const at = text.length - nl(tail).length + column
      for (const result of [
        scan(text, options),
        feed(splitAt(text, points), options),
        feed(chars(text), options),
      ])
        expect(result.markup.map((m) => [m.toolName, m.start])).toEqual([["read_file", at]])
    },
  )
})

describe("a fence after a list ended is not in the list", () => {
  // A line at the margin after a blank line ends the list (§5.2), also when the prose scan skips
  // it: a later fence's lines are read without the item's column (a less indented line is code).
  test.prop([
    marker,
    fc.constantFrom("foo", "Then:", "ok."),
    fc.integer({ min: 1, max: 3 }),
    fc.nat(),
    fc.oneof(leak, malformed),
    fc.boolean(),
    cuts(400),
  ])(
    "markup in it is never flagged, under any chunking and line end",
    (item, prose, at, by, inner, crlf, points) => {
      const lines = inner.split("\n").map((line) => (line === "" ? line : " ".repeat(by % at) + line))
      const n = Math.max(3, longestRun(inner, "`") + 1)
      const doc = `${item}a\n\n${prose}\n${" ".repeat(at)}${"`".repeat(n)}\n${lines.join("\n")}\n`
      const text = crlf ? doc.replace(/\n/g, "\r\n") : doc
      for (const result of [
        scan(text, options),
        feed(splitAt(text, points), options),
        feed(chars(text), options),
      ])
        expect(result).toMatchObject({ text, markup: [] })
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

/**
 * A container around a block (CommonMark §5): a blockquote prefixes every line with its marker
 * (§5.1); a list item puts its marker on the first line and indents the others to its content
 * column (§5.2), with spaces or a tab (tab stops of four, §2.2).
 */
type Layer = { quote: string } | { marker: string; indent: string }

const layer: fc.Arbitrary<Layer> = fc.oneof(
  // (`>\t`: one column of the tab is the marker's space, the rest indents every line alike, §2.2.)
  fc.constantFrom("> ", ">", " > ", ">\t").map((quote) => ({ quote })),
  fc
    .constantFrom(
      ["- ", "  "],
      ["1. ", "   "],
      ["10) ", "    "],
      ["-\t", "\t"],
      ["-\t", "    "],
      ["*\t", "\t"],
    )
    .map(([marker, indent]) => ({ marker: marker!, indent: indent! })),
)

/** `lines` inside `layers` (outermost first). */
function nest(lines: readonly string[], layers: readonly Layer[]): string[] {
  let out = [...lines]
  for (const l of [...layers].reverse()) {
    out =
      "quote" in l
        ? out.map((line) => (line === "" ? l.quote.trimEnd() : l.quote + line))
        : out.map((line, k) => (k === 0 ? l.marker + line : line === "" ? line : l.indent + line))
  }
  return out
}

/** Indented code (§4.4) holding `inner`: every line four spaces in. */
const indentedBlock = fc.oneof(leak, malformed).map((inner) => ({
  lines: inner.split("\n").map((line) => (line === "" ? line : `    ${line}`)),
  closed: true,
}))

/**
 * A code block as the first content of nested containers, up to three deep.
 */
const inContainers = fc
  .tuple(
    fc.oneof(
      codeBlock.map((b) => ({ ...b, kind: /^[`~]/.test(b.lines[0]!) ? "fence" : "html" })),
      indentedBlock.map((b) => ({ ...b, kind: "indented" })),
    ),
    fc.array(layer, { minLength: 1, maxLength: 3 }),
    fc.constantFrom("", "Text:\n\n", "Text:\n"),
  )
  .filter(([{ kind }, layers, before]) => {
    // Tab stops are columns of the line: a tab after a nested marker may end elsewhere than one
    // on the lines below it (§2.2). Tab-indented items stand at the margin.
    const tabInside = layers.some((l, k) => k > 0 && "marker" in l && l.marker.includes("\t"))
    // A quote written `>` takes a space of the line after it as its own (§5.1): it holds no
    // indented line (`>    x` is a paragraph), so it is the innermost layer and holds no indented code.
    const tight = layers.some(
      (l, k) => "quote" in l && l.quote === ">" && (k < layers.length - 1 || kind === "indented"),
    )
    // A list interrupting a paragraph starts at 1 (§5.2).
    const interrupts = before === "Text:\n" && layers.some((l) => "marker" in l && l.marker.startsWith("10"))
    return !tabInside && !tight && !interrupts && (before !== "Text:\n" || "quote" in layers[0]!)
  })
  .map(([{ lines, closed }, layers, before]) => ({
    layers,
    doc: `${before}${nest(lines, layers).join("\n")}\n`,
    // A quote's end ends the blocks in it (no lazy line continues code): so does the first line
    // without its markers.
    closed: closed || layers.some((l) => "quote" in l),
  }))

describe("code in nested containers: quotes in items, items in quotes, indented code, tabs (§5)", () => {
  test.prop([inContainers, fc.boolean(), cuts(400)])(
    "markup inside is never flagged, under any chunking and line end",
    ({ doc }, crlf, points) => {
      const text = crlf ? doc.replace(/\n/g, "\r\n") : doc
      expect(scan(text, options)).toMatchObject({ text, markup: [] })
      expect(feed(splitAt(text, points), options)).toMatchObject({ text, markup: [] })
      expect(feed(chars(text), options)).toMatchObject({ text, markup: [] })
    },
  )

  const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
  test.prop([inContainers.filter(({ closed }) => closed), fc.boolean(), cuts(400)])(
    "the containers' end ends the code: a call at the margin after them is flagged",
    ({ doc }, crlf, points) => {
      const raw = `${doc}\nOk.\n\n${call}`
      const text = crlf ? raw.replace(/\n/g, "\r\n") : raw
      const found = feed(splitAt(text, points), options).markup.map((m) => [m.toolName, m.end])
      expect(found).toEqual([["read_file", text.length]])
    },
  )

  const one = '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>'
  // A quote written ` > ` right after a list marker: its space is the marker's (up to four columns
  // of them, §5.2), so the item's content is a column right of its continuation lines' indentation.
  const spacedQuoteInItem = (layers: readonly Layer[]) =>
    layers.some((l, k) => {
      const next = layers[k + 1]
      return "marker" in l && next !== undefined && "quote" in next && next.quote.startsWith(" ")
    })
  test.prop([
    inContainers.filter(({ layers }) => !spacedQuoteInItem(layers)),
    fc.nat(),
    fc.boolean(),
    cuts(400),
  ])(
    "a line that leaves a container ends the code in it: a call on it, in the containers around, is flagged",
    ({ doc, layers }, by, crlf, points) => {
      // The line stands in the first `depth` containers only (a quote's marker, a list item's
      // indentation): it lacks the next container's marker, or stands left of its item's content.
      // That container ends (code has no lazy lines, §5.1, §5.2), and the line is a paragraph of
      // the container around it.
      const depth = by % layers.length
      const [line] = nest(
        [one],
        layers.slice(0, depth).map((l) => ("quote" in l ? l : { marker: l.indent, indent: l.indent })),
      )
      const raw = `${doc}${line}`
      const text = crlf ? raw.replace(/\n/g, "\r\n") : raw
      for (const result of [
        scan(text, options),
        feed(splitAt(text, points), options),
        feed(chars(text), options),
      ])
        expect(result.markup.map((m) => [m.toolName, m.end])).toEqual([["read_file", text.length]])
    },
  )

  const leaked = '<tool_call>\n{"name":"read_file","arguments":{}}\n</tool_call>'
  const under = (prefix: string) => leaked.replace(/\n/g, `\n${prefix}`)
  test.each([
    ["indented code in a quote (§5.1, §4.4)", `>     ${under(">     ")}`],
    [
      "indented code in a quote after a quoted paragraph and a blank quoted line",
      `> Run:\n>\n>     ${under(">     ")}`,
    ],
    ["indented code in a quote right after a paragraph outside it", `Run:\n>     ${under(">     ")}`],
    ["a fence after a tab after a list marker (§5.2, tab stops §2.2)", `-\t~~~\n\t${under("\t")}\n\t~~~`],
    ["a fence after a tab, its lines four spaces in", `1.\t~~~\n    ${under("    ")}\n    ~~~`],
    ["a fence in a list item in a quote", `> - ~~~json\n>   ${under(">   ")}\n>   ~~~`],
    [
      "indented code in a list item in a quote, after a blank line",
      `> - Run:\n>\n>       ${under(">       ")}`,
    ],
    ["a fence in a quote in a list item", `- > ~~~\n  > ${under("  > ")}\n  > ~~~`],
    ["a fence in a quote in a wide list item", `10) > ~~~\n    > ${under("    > ")}\n    > ~~~`],
  ])("%s is code, and a call after it is one", (_, code) => {
    expectCodeThenCall(code, call)
  })

  test.prop([
    fc.constantFrom("- ", "1. ", "10) ", "-  "),
    fc.nat({ max: 9 }),
    fc.constantFrom("> ", " > ", "> > "),
    fc.boolean(),
    cuts(300),
  ])(
    "after a quoted list item and a blank quoted line, a line is code only four columns past the item's content",
    (marker, spaces, quote, crlf, points) => {
      const at = `${quote}${" ".repeat(spaces)}`
      const raw = `${quote}${marker}Run:\n${quote.trimEnd()}\n${at}${call.replace(/\n/g, `\n${at}`)}\n`
      const text = crlf ? raw.replace(/\n/g, "\r\n") : raw
      const code = spaces >= marker.length + 4
      const found = feed(splitAt(text, points), options).markup.map((m) => m.toolName)
      expect(found).toEqual(code ? [] : ["read_file"])
    },
  )

  test.each([
    ["four spaces after `>` (one is the quote's own): a paragraph", `>    ${call}`],
    ["an indented line continuing a quoted paragraph", `> Run:\n>     ${call}`],
    ["an indented line continuing a deeper quoted paragraph (lazy)", `> > Run:\n>     ${call}`],
    ["a quoted list item's prose", `> - ${call}`],
    ["a quote in a list item, prose", `- > ${call}`],
    ["a quoted line after quoted code", `>     x = 1\n>\n> ${call.replace(/\n/g, "\n> ")}`],
    ["a tab after `>` (part of it is the quote's space): read as prose", `>\t${call}`],
    [
      "a quoted list item's paragraph four columns into the quote (two into the item)",
      `> - Run:\n>\n>     ${call.replace(/\n/g, "\n>     ")}`,
    ],
    [
      "a quoted list item's paragraph after its fence",
      `> - ~~~\n>   x\n>   ~~~\n>\n>     ${call.replace(/\n/g, "\n>     ")}`,
    ],
    ["a quoted fence's list item, then a line without the quote", `> - \`\`\`\n>   x\n${call}`],
  ])("%s stays a call", (_, text) => {
    expect(scan(text, options).markup.map((m) => m.toolName)).toEqual(["read_file"])
  })
})

describe("blockquotes hold HTML blocks, tabs after `>`, and end their items' code (§5.1, §4.6, §2.2)", () => {
  // Each row checked against micromark (CommonMark 0.31): is the call in code, or prose?
  const one = '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>'
  test.each([
    ["an HTML block in a quote (§4.6 kind 1)", `> <pre>\n> ${one}\n> </pre>`],
    ["an HTML block in a quote, the call on its opening line", `> <PRE class="x">${one}\n> </PRE>`],
    ["an unclosed <script> in a quote", `> <script>\n> ${one}`],
    ["an HTML block in a quote in a list item", `- > <textarea>\n  > ${one}\n  > </textarea>`],
    ["an HTML block in a list item in a quote", `> - <style>\n>   ${one}\n>   </style>`],
    ["an HTML block in a nested quote", `> > <pre>\n> > ${one}`],
    ["an HTML block in a quote across a blank quoted line", `> <pre>\n>\n> ${one}\n> </pre>`],
    ["a quoted item's HTML block across a blank quoted line", `> - <pre>\n>\n>   ${one}`],
    ["two tabs after `>`: indented code (the first tab's rest is indentation, §2.2)", `>\t\t${one}`],
    ["a tab and two spaces after `>`: indented code", `>\t  ${one}`],
    ["two tabs after a nested `>`", `> >\t\t${one}`],
    ["two tabs after `>` in a list item", `- >\t\t${one}`],
    ["a fence after a tab after `>`", `>\t~~~\n>\t${one}\n>\t~~~`],
    ["a tab after ` >`: three columns of it indent", ` >\t   ${one}`],
  ])("%s is code, and a call after it is one", (_, code) => {
    expectCodeThenCall(code, one)
  })

  test.each([
    ["a line without the quote ends its HTML block (no lazy line)", `> <pre>\n> x\n${one}`],
    ["the closing tag's line ends a quoted HTML block", `> <pre>\n> x\n> </pre>\n> ${one}`],
    ["a tab after ` > `: one column of indentation", ` > \t${one}`],
    ["left of a quoted item's content: the item ends, and its fence", `> - \`\`\`\n>   x\n> ${one}`],
    ["at the quote's margin, left of its item's fence", `> - \`\`\`\n>   x\n>${one}`],
    ["left of a quoted ordered item's content", `> 1. \`\`\`\n>    x\n>  ${one}`],
    ["left of a nested quoted item's fence, in the outer item", `> - a\n>   - \`\`\`\n>     x\n>   ${one}`],
    ["left of a quoted item's HTML block", `> - <pre>\n>   x\n> ${one}`],
    ["a quoted item's fence after a blank quoted line", `> - \`\`\`\n>\n> ${one}`],
  ])("%s: the call on it is flagged", (_, text) => {
    for (const chunks of [[text], chars(text)])
      expect(feed(chunks, options).markup.map((m) => [m.toolName, m.end])).toEqual([
        ["read_file", text.length],
      ])
  })
})

describe("a line that ends a list item is read against what holds it (§5.2)", () => {
  const one = '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>'
  test.each([
    // Checked against micromark (CommonMark 0.31).
    ["left of a wide item's content after a blank line: indented code at the margin", `1.   a\n\n    ${one}`],
    ["a quote left of an item's content: a new quote, its indented code", `- > Run:\n>     ${one}`],
    // The list was in the inner quote, which a blank line of the outer one ended.
    ["indented code in a quote after a deeper quote's list item", `> > - a\n>\n>     ${one}`],
  ])("%s is code, and a call after it is one", (_, code) => {
    expectCodeThenCall(code, one)
  })
})

describe("a line that ends a nested item's code is read against the outer item (§5.2)", () => {
  // Left of the inner item's content, at or right of the outer one's: a line of the outer item,
  // indented less than four columns past its content, is its paragraph, not indented code.
  const one = '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>'
  test.each([
    ["an ordered item's nested fence", `1. a\n   - \`\`\`\n     x\n    ${one}`],
    ["a wide item's nested fence", `10) a\n    - \`\`\`\n      x\n    ${one}`],
    ["a quote's fence in a list item, then a line of the item", `- > \`\`\`\n  > x\n    ${one}`],
    [
      "a fence in the outer item after its nested item, then a line left of it",
      `- a\n  - b\n  \`\`\`\n  x\n${one}`,
    ],
    [
      "a nested item's fence in a quote, then a line of the outer item",
      `> 10) - \`\`\`\n>       x\n>     ${one}`,
    ],
    [
      "a nested item's fence after a tab after `>`, then a line of the outer item",
      `>\t- - \`\`\`\n>\t    x\n>\t  ${one}`,
    ],
    [
      "a quoted fence in an earlier line's item, then a line left of it",
      `> - a\n>   \`\`\`\n>   x\n> ${one}`,
    ],
    [
      "a quoted item holding a quote's fence, then a line of the item",
      `> 10) > \`\`\`\n>     > x\n>     > \`\`\`\n>     ${one}`,
    ],
  ])("%s: the call on it is flagged", (_, text) => {
    for (const chunks of [[text], chars(text)])
      expect(feed(chunks, options).markup.map((m) => [m.toolName, m.end])).toEqual([
        ["read_file", text.length],
      ])
  })
})

/**
 * `code` is shown whole (in one push and one character at a time), and `after`, written after it
 * and a paragraph, is the one call found, ending the text.
 */
function expectCodeThenCall(code: string, after: string): void {
  for (const chunks of [[code], chars(code)])
    expect(feed(chunks, options)).toMatchObject({ text: code, markup: [] })
  const text = `${code}\n\nOk.\n\n${after}`
  for (const chunks of [[text], chars(text)]) {
    const found = feed(chunks, options).markup.map((m) => [m.toolName, m.end])
    expect(found).toEqual([["read_file", text.length]])
  }
}
