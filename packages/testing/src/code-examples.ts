/**
 * `fencedExample()`, `inlineCodeExample()`, `indentedCodeExample()` and `htmlCodeExample()`:
 * tool-call markup shown as an example inside a Markdown fenced code block, an inline code span,
 * an indented code block or an HTML `<pre>`-like block (CommonMark §4.5, §6.1, §4.4, §4.6). A
 * detector must leave it as text: it is what a model writes when it explains a format.
 */
import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import type { ExampleLabels, LeakLabels, Sample } from "./labels.ts"
import { defaultFormats, leakedCall } from "./leaked-call.ts"

/**
 * Options of {@link fencedExample} and {@link inlineCodeExample}.
 *
 * @example
 * ```ts
 * import { fencedExample } from "@tool-rescue/testing"
 *
 * const qwenDocs = fencedExample({ tools: ["bash"], format: "qwen3-coder", unclosed: false })
 * ```
 */
export interface CodeExampleOptions {
  /** Tool names the shown calls use (offered or not, it must stay text). @defaultValue `["read_file", "bash", "get_weather"]` */
  readonly tools?: readonly string[]
  /** The format(s) of the markup shown. @defaultValue every format but `cline-xml` */
  readonly format?: FormatId | readonly FormatId[]
  /** Fenced only: also draw fences that are never closed (they run to the end of the text). @defaultValue true */
  readonly unclosed?: boolean
}

const defaultTools = ["read_file", "bash", "get_weather"]

function shown(options: CodeExampleOptions): fc.Arbitrary<Sample<LeakLabels>> {
  return leakedCall({
    tools: options.tools ?? defaultTools,
    format: options.format ?? defaultFormats,
    maxCalls: 2,
  })
}

/** The longest run of `char` at the start of a line (after ≤3 spaces) followed only by whitespace: a would-be closing fence. */
function longestClosingRun(content: string, char: string): number {
  let longest = 0
  for (const line of content.split("\n")) {
    const trimmed = line.replace(/^ {0,3}/, "")
    let run = 0
    while (trimmed[run] === char) run++
    if (run > 0 && trimmed.slice(run).trim() === "") longest = Math.max(longest, run)
  }
  return longest
}

/**
 * Tool-call markup inside a fenced code block: backticks or tildes, 3+ characters (always longer
 * than any fence-like line inside), up to three spaces of indent, an info string (`xml`, `json`,
 * …) or none; optionally never closed (the block runs to the end of the text). Labels are empty:
 * a detector must report no markup and show the whole block.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { fencedExample } from "@tool-rescue/testing"
 *
 * fc.assert(fc.property(fencedExample(), ({ text }) => scan(text, { tools: ["read_file"] }).markup.length === 0))
 * ```
 */
export function fencedExample(options: CodeExampleOptions = {}): fc.Arbitrary<Sample<ExampleLabels>> {
  return fc
    .record({
      content: shown(options),
      char: fc.constantFrom("`", "~"),
      extra: fc.nat({ max: 2 }),
      indent: fc.nat({ max: 3 }),
      info: fc.constantFrom("", "xml", "json", "text", "python", "tool_call"),
      unclosed: options.unclosed === false ? fc.constant(false) : fc.boolean(),
    })
    .map(({ content, char, extra, indent, info, unclosed }) => {
      const fence = char.repeat(Math.max(3, longestClosingRun(content.text, char) + 1) + extra)
      const pad = " ".repeat(indent)
      const text = `${pad}${fence}${info}\n${content.text}${unclosed ? "" : `\n${pad}${fence}`}`
      return { text, labels: noExampleLabels(content, unclosed) }
    })
}

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0
  let run = 0
  for (const char of text) {
    run = char === "`" ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/**
 * Tool-call markup inside an inline code span within a sentence, on one line (newlines of the
 * markup become spaces, since a line inside a paragraph could otherwise start a block). The
 * delimiter run is longer than any backtick run inside. Labels are empty: a detector must report
 * no markup.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { inlineCodeExample } from "@tool-rescue/testing"
 *
 * fc.assert(fc.property(inlineCodeExample(), ({ text }) => scan(text, { tools: ["read_file"] }).markup.length === 0))
 * ```
 */
export function inlineCodeExample(options: CodeExampleOptions = {}): fc.Arbitrary<Sample<ExampleLabels>> {
  return fc
    .record({
      content: shown(options),
      before: fc.constantFrom("The format is ", "Write ", "For example, ", "", "Use "),
      after: fc.constantFrom(" to call a tool.", ".", "", " — not this."),
    })
    .map(({ content, before, after }) => {
      const code = content.text.replace(/\r?\n/g, " ")
      const delimiter = "`".repeat(longestBacktickRun(code) + 1)
      // CommonMark strips one space on each side when both are present: pad when the code touches a backtick.
      const padded = code.startsWith("`") || code.endsWith("`") ? ` ${code} ` : code
      return {
        text: `${before}${delimiter}${padded}${delimiter}${after}`,
        labels: noExampleLabels(content, false),
      }
    })
}

const noExampleLabels = (content: Sample<LeakLabels>, unclosed: boolean): ExampleLabels => ({
  tools: [],
  recoverable: false,
  calls: [],
  format: content.labels.format,
  unclosed,
})

/**
 * Tool-call markup inside an indented code block (CommonMark §4.4): every line indented by four
 * or more spaces or a tab, at the start of the text or after a blank line (an indented line
 * right after a paragraph line continues the paragraph instead). Labels are empty: a detector
 * must report no markup and show the whole block.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { indentedCodeExample } from "@tool-rescue/testing"
 *
 * fc.assert(fc.property(indentedCodeExample(), ({ text }) => scan(text, { tools: ["read_file"] }).markup.length === 0))
 * ```
 */
export function indentedCodeExample(options: CodeExampleOptions = {}): fc.Arbitrary<Sample<ExampleLabels>> {
  return fc
    .record({
      content: shown(options),
      before: fc.constantFrom("", "The format:\n\n", "1. Write it so:\n\n   \n", "Like this:\r\n\r\n"),
      indent: fc.constantFrom("    ", "     ", "\t", "  \t"),
      after: fc.constantFrom("", "\n", "\n\nThat is all."),
    })
    .map(({ content, before, indent, after }) => {
      // In a list item (`1. `) the code is four columns past the item's content, which starts at
      // 3. Tabs stop every four columns of the line (CommonMark §2.2): a tab right after the
      // item's three spaces only reaches column 4 (the item's paragraph), so it follows a space.
      const pad = before.startsWith("1.") ? `   ${indent === "\t" ? " \t" : indent}` : indent
      const body = content.text
        .split("\n")
        .map((line) => pad + line)
        .join("\n")
      return { text: `${before}${body}${after}`, labels: noExampleLabels(content, false) }
    })
}

/** The tags whose HTML blocks are code (CommonMark §4.6 kind 1, and `<code>`). */
const htmlCodeTags = ["pre", "code", "script", "style", "textarea", "PRE", "Pre"]

/**
 * Tool-call markup inside an HTML block of kind 1 (`<pre>`, `<code>`, `<script>`, `<style>`,
 * `<textarea>`, any case, CommonMark §4.6): it runs to the line that holds the closing tag, or to
 * the end of the text when there is none. Labels are empty: a detector must report no markup.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { htmlCodeExample } from "@tool-rescue/testing"
 *
 * fc.assert(fc.property(htmlCodeExample(), ({ text }) => scan(text, { tools: ["read_file"] }).markup.length === 0))
 * ```
 */
export function htmlCodeExample(options: CodeExampleOptions = {}): fc.Arbitrary<Sample<ExampleLabels>> {
  return fc
    .record({
      content: shown(options),
      before: fc.constantFrom("", "The format:\n", "Like this:\n\n", "  "),
      tag: fc.constantFrom(...htmlCodeTags),
      attributes: fc.constantFrom("", ' class="language-xml"', " data-x"),
      newline: fc.boolean(),
      unclosed: options.unclosed === false ? fc.constant(false) : fc.boolean(),
      after: fc.constantFrom("", "\nDone.", " then text"),
    })
    .map(({ content, before, tag, attributes, newline, unclosed, after }) => {
      const nl = newline ? "\n" : ""
      const close = unclosed ? "" : `${nl}</${tag.toLowerCase()}>${after}`
      return {
        text: `${before}<${tag}${attributes}>${nl}${content.text}${close}`,
        labels: noExampleLabels(content, unclosed),
      }
    })
}
