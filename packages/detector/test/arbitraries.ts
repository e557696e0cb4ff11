import fc from "fast-check"
import { formats } from "../src/index.ts"

/** Every opening/closing literal and inner tag a format uses: the pieces that must survive any split. */
export const MARKERS: readonly string[] = [
  "<tool_call>",
  "</tool_call>",
  "<function=",
  "</function>",
  "<parameter=",
  "</parameter>",
  "<tools>",
  "</tools>",
  "[TOOL_CALLS]",
  "[ARGS]",
  "<|python_tag|>",
  "<｜tool▁calls▁begin｜>",
  "<｜tool▁call▁begin｜>",
  "<｜tool▁sep｜>",
  "<｜tool▁call▁end｜>",
  "<｜tool▁calls▁end｜>",
  "<|tool_calls_begin|>",
  "<｜DSML｜function_calls>",
  "<｜DSML｜invoke name=",
  "<|tool_calls_section_begin|>",
  "<|tool_call_section_begin|>",
  "<|tool_call_begin|>",
  "<|tool_call_argument_begin|>",
  "<|tool_call_end|>",
  "<|start|>assistant",
  "<|channel|>",
  "<|message|>",
  "<|call|>",
  "<|end|>",
  "to=functions.",
  "<minimax:tool_call>",
  "]<]minimax[>[",
  "]<]minimax[>[<tool_call>",
  "<tool_calls>",
  "<|tool_call|>",
  "<start_function_call>",
  "<|tool_call>",
  "<tool_call|>",
  "<function_calls>",
  "<invoke name=",
  "</invoke>",
  "Action: ```json",
  "<|START_ACTION|>",
  "<seed:tool_call>",
  "<|action_start|><|plugin|>",
  "functools[",
  "<|tool_call_start|>",
  "<TOOLCALL>",
  "<|tools_prefix|>",
  "<think>",
  "</think>",
  "[THINK]",
  "[/THINK]",
  "analysis",
  "assistantfinal",
  "```",
  "~~~",
  "`",
  "\n",
]

export const TOOLS: readonly string[] = ["read_file", "get_weather", "Bash", "Read", "Glob", "exec_command"]

/** A leaked call in some format, naming some tool (offered or not). */
export const leak: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...formats.filter((f) => f.id !== "cline-xml")),
    fc.constantFrom(...TOOLS, "unknown_tool"),
  )
  .map(([f, tool]) => f.example.split(f.exampleTool).join(tool))

const prose = fc.constantFrom(
  "Sure, let me look.",
  "I'll read the file first.\n\n",
  "Use `ls -la` to list files.",
  "a < b and c > d, x<y",
  "#include <functional>\n",
  '<div class="x"><p>Hello</p></div>',
  "The <function> keyword in prose.",
  "<function={{ tc.name }}>",
  "Done. Anything else?",
  "\n\n",
  "  ",
  "emoji 😀 and 中文",
  "[link](http://x.y) [1] [a, b]",
  '{"json": true}',
  "to be or not to be; functional",
)

/** The malformed shapes of issue 13: envelopes without the call the table knows, tolerant names, stray closers. */
export const malformed: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(
      "<｜tool▁calls▁begin｜>TOOL<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
      "<｜tool▁calls▁begin｜>",
      "function<｜tool▁sep｜>TOOL\n```json\n{}\n```<｜tool▁call▁end｜>",
      '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="TOOL"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
      "<tool_call>\n<function=TOOL x\n</tool_call>",
      "<tool_call>>\n<function=TOOL>\n</function>\n</tool_call>",
      '<tool_call>{"name": "TOOL", "arguments": {}}</tool_call>\n</tool_call>',
      "<|tool_call_end|>",
      '[TOOL_CALLS]TOOL[CALL_ID]a1b2c3d4e[ARGS]{"a": 1}',
      '<x:function_calls><x:invoke name="TOOL"><x:parameter name="a">1</x:parameter></x:invoke></x:function_calls>',
      '<|start|>assistant to=TOOL<|message|><y:invoke name="TOOL"></y:invoke>',
      "<tool_call>TOOL <arg_value>1</arg_value></tool_call>",
      'Ok. {"name": "TOOL", "parameters": {"a": 1}}; {"name": "TOOL", "arguments": {}}',
      '<function="TOOL">\n<parameter=a>1</parameter>\n</function>',
    ),
    fc.constantFrom(...TOOLS, "unknown_tool"),
  )
  .map(([shape, tool]) => shape.split("TOOL").join(tool))

/** Prose that names headers, tags and tools without a call's structure (each mention is followed by a word). */
export const mention: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(
      "<function=TOOL>",
      '<invoke name="TOOL">',
      '<x:invoke name="TOOL">',
      "/api/<function=TOOL>/status",
      "<|start|>assistant to=functions.TOOL",
      "to=functions.TOOL",
      "<tool_call>TOOL",
      '{"name": "TOOL"}',
      "<tool_call>",
      "</tool_call>",
      "<function_calls>",
      "<parameter=path>",
    ),
    fc.constantFrom(...TOOLS, "unknown_tool"),
    fc.constantFrom("followed", "and", "tag", "means", "here"),
    fc.constantFrom("Qwen models emit ", "The header ", "See ", "Write "),
    fc.constantFrom(".", " then more.", ":\n", "\n\n"),
  )
  .map(([shape, tool, word, before, after]) => `${before}${shape.split("TOOL").join(tool)} ${word}${after}`)

/** `inner` as an indented code block (CommonMark §4.4): after a blank line, every line indented. */
export const indented = (inner: string, by = "    "): string =>
  `Like this:\n\n${inner
    .split("\n")
    .map((line) => by + line)
    .join("\n")}\n\nDone.`

/** `inner` in an HTML block of kind 1 (CommonMark §4.6). */
export const htmlBlock = (inner: string, tag: string): string =>
  `<${tag}>\n${inner}\n</${tag.toLowerCase()}>\nDone.`

/** A Markdown fence wrapping `inner` (the inner text never closes it). */
export const fenced = (inner: string): string => `\n\`\`\`xml\n${inner}\n\`\`\`\n`

/** Text mixing prose, leaks, fenced and inline examples, reasoning, partial markers and odd code units. */
export const document: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: prose },
      { weight: 3, arbitrary: leak },
      { weight: 2, arbitrary: malformed },
      { weight: 1, arbitrary: mention },
      { weight: 1, arbitrary: leak.map(fenced) },
      { weight: 1, arbitrary: leak.map((l) => `\`\`${l.replace(/`/g, "")}\`\``) },
      { weight: 2, arbitrary: fc.constantFrom(...MARKERS) },
      { weight: 1, arbitrary: fc.constantFrom(...MARKERS).map((m) => m.slice(0, Math.max(1, m.length - 1))) },
      { weight: 1, arbitrary: fc.constantFrom("\uD800", "\uDC00", "\u0000", "\uFFFF", "😀", "\r\n") },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(""))

/** Cut points for a text of length `n`. */
export const cuts = (n: number): fc.Arbitrary<number[]> =>
  fc.array(fc.integer({ min: 0, max: n }), { maxLength: 12 })

/**
 * Markdown dense with what a push may end in or hold: backtick runs (closed, unclosed, at a delta's
 * end), HTML tags and namespaced ones (`<b>`, `</div>`, `<x:invoke`), a lone `<`, letters that start
 * prose openers (`t`, `f`), fences, blank lines, and now and then a marker or a leaked call.
 */
export const denseMarkdown: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom("the ", "that ", "first ", "a ", "x", "t", "f", "to ", "(i) ", "; "),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom("`", "``", "```", "` ", " `", "`a`", "`<b>`", "``a`b``", "`[i]`"),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          "<",
          "< ",
          "<b>",
          "</b>",
          "</",
          '<div class="c">',
          "</div>",
          "<br/>",
          "<!-- c -->",
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom("<x:b>", "<x:invoke", "</x:", "<https://e.com>", "Array<number>", "a<b"),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          "\n",
          "\n\n",
          "\n```ts\n",
          "\n```\n",
          "\n~~~\n",
          "\n```\n\n",
          "\n  ~~~ \n\n",
          "\n    ",
          "\n- ",
          "\r\n",
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom("[1]", "[i]", "{x}", "]", "[", ">", ">>") },
      { weight: 1, arbitrary: fc.constantFrom(...MARKERS) },
      { weight: 2, arbitrary: leak },
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""))
