/**
 * Indented code blocks (CommonMark §4.4, with the list-item rule of §5.2) and HTML blocks of kind 1
 * (§4.6) are code: a call inside one is an example, never flagged. Blockquotes stay prose.
 */
import { describe, expect, test } from "vitest"
import { scan } from "../src/index.ts"
import { brief, chars, feed } from "./helpers.ts"

const tools = ["read_file", "get_weather"]
const qwen = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>"
const hermes = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
const indent = (text: string, by = "    "): string =>
  text
    .split("\n")
    .map((line) => by + line)
    .join("\n")

/** `text` holds no markup, whole and one code unit at a time. */
function expectCode(text: string): void {
  expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
  expect(feed(chars(text), { tools })).toMatchObject({ text, markup: [] })
}

/** `text` holds exactly the calls `expected`, whole and one code unit at a time. */
function expectCalls(text: string, expected: readonly string[]): void {
  const whole = scan(text, { tools })
  expect(whole.markup.map(brief)).toEqual(expected)
  expect(feed(chars(text), { tools })).toMatchObject(whole)
}

describe("indented code blocks (CommonMark §4.4)", () => {
  test.each([
    ["after a blank line", `The format:\n\n${indent(qwen)}\n\nDone.`],
    ["at the start of the response", `${indent(hermes)}\nDone.`],
    ["indented with a tab", `Example:\n\n${indent(hermes, "\t")}\n`],
    [
      "a blank line inside the block does not end it",
      `Example:\n\n    <tool_call>\n\n    ${qwen.replace(/\n/g, "\n    ")}\n`,
    ],
    ["after a fenced block", `\`\`\`\nx\n\`\`\`\n${indent(qwen)}\n`],
    ["CRLF line ends", `Example:\r\n\r\n${indent(hermes).replace(/\n/g, "\r\n")}\r\n`],
    [
      "in a list item, four spaces past its content",
      `1. Run:\n\n       ${qwen.replace(/\n/g, "\n       ")}\n`,
    ],
    ["inside reasoning", `<think>Like this:\n\n${indent(hermes)}\n</think>\nAnswer.`],
  ])("%s: an example", (_, text) => expectCode(text))

  test.each([
    ["an indented line continues a paragraph (no blank line before)", `I will call it now.\n    ${hermes}`],
    [
      "four spaces in a list item are its continuation paragraph, not code",
      `- Reading the file:\n\n    ${hermes.replace(/\n/g, " ")}`,
    ],
    ["a line back at the margin ends the block", `Example:\n\n    code line\n${hermes}`],
    ["three spaces are not enough", `Example:\n\n   ${hermes}`],
    ["the list ended: a blank line, then a line left of its content", `- item\n\nOk.\n\n${hermes}`],
  ])("%s: the call is flagged", (_, text) => {
    expectCalls(text, ["hermes:read_file open,close,struct"])
  })
})

describe("HTML blocks of kind 1 (CommonMark §4.6)", () => {
  test.each([
    ["<pre>", `<pre>\n${qwen}\n</pre>\nDone.`],
    ["<code> on one line", `<code>${hermes.replace(/\n/g, " ")}</code>\nDone.`],
    ["<PRE class=…> in upper case, closed in lower case", `Example:\n<PRE class="x">\n${hermes}\n</pre>\n`],
    ["<script>", `<script type="text/plain">\n${hermes}\n</script>\n`],
    ["<style>", `<style>\n${qwen}\n</style>\n`],
    ["<textarea>", `<textarea>\n${hermes}\n</textarea>\n`],
    ["unclosed: runs to the end", `<pre>\n${qwen}\nstill code`],
    ["indented by up to three spaces", `   <pre>\n${qwen}\n</pre>\n`],
  ])("%s: an example", (_, text) => expectCode(text))

  test("the call after the block's closing line is flagged", () => {
    expectCalls(`<pre>\nexample\n</pre>\n${hermes}`, ["hermes:read_file open,close,struct"])
  })

  test.each([
    ["<pre> ended by </script>", `<pre>\nx\n</script>\n${hermes}`],
    ["<textarea> ended by </STYLE>", `<textarea>\nx </STYLE>\n${hermes}`],
    ["<script> ended by </pre> on its opening line", `<script>x</pre>\n${hermes}`],
  ])("any kind-1 end tag ends the block (%s), and the call after it is flagged", (_, text) => {
    expectCalls(text, ["hermes:read_file open,close,struct"])
  })

  test("a <code> block ends only at </code>", () => expectCode(`<code>\nx </pre>\n${hermes}\n</code>\n`))

  test("the closing tag ends the block with its line, also across a split inside it", () => {
    const text = `<pre>\nx\n</PrE> then text\n${hermes}`
    expectCalls(text, ["hermes:read_file open,close,struct"])
  })

  test.each([
    ["a tag that only starts like one (<prefix>)", `<prefix>\n${hermes}`],
    ["an inline <code> in a paragraph is no block", `Use <code>x</code> and:\n${hermes}`],
    ["four spaces of indent is no HTML block (it is prose after a paragraph)", `Text\n    <pre>\n${hermes}`],
  ])("%s: the call is flagged", (_, text) => {
    expectCalls(text, ["hermes:read_file open,close,struct"])
  })
})

describe("blockquotes stay prose", () => {
  test("a call quoted with `>` is a call", () => {
    const text = `> ${hermes.replace(/\n/g, "\n> ")}`
    expect(scan(text, { tools }).markup.map((m) => m.toolName)).toEqual(["read_file"])
  })
})

describe("inline code spans cross line ends (CommonMark §6.1)", () => {
  const action = 'Action: ```json\n[{"tool_name": "get_weather", "parameters": {"city": "Paris"}}]\n```'

  test("a line-anchored opener inside a span that closes on a later line is an example", () => {
    expectCode(`Write \`\`\`\` I'll check.\n${action} \`\`\`\` exactly.`)
  })

  test("after a backtick run that never closes in its paragraph, the opener is a call", () => {
    expectCalls(`A stray \`\`\`\` run.\n${action}`, ["command-r:get_weather open,close,struct"])
  })
})
