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

/** A Markdown fence wrapping `inner` (the inner text never closes it). */
export const fenced = (inner: string): string => `\n\`\`\`xml\n${inner}\n\`\`\`\n`

/** Text mixing prose, leaks, fenced and inline examples, reasoning, partial markers and odd code units. */
export const document: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: prose },
      { weight: 3, arbitrary: leak },
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
