/**
 * `prose()`: ordinary answer text that is hard for a detector — full of `<`, HTML and JSX,
 * C++ includes and templates, backticks, tildes and near-miss markers — but holding no tool-call
 * markup at all.
 */
import fc from "fast-check"
import type { Labels, Sample } from "./labels.ts"

/**
 * Options of {@link prose}.
 *
 * @example
 * ```ts
 * import { prose } from "@tool-rescue/testing"
 *
 * const beforeALeak = prose({ strays: false })
 * ```
 */
export interface ProseOptions {
  /** Inline code spans and fenced code blocks (markup-free). @defaultValue true */
  readonly code?: boolean
  /**
   * Unmatched backtick runs (a stray backtick is literal text). Leave them out of text that a
   * leak follows: a later backtick run of the same length would close the span around the leak.
   * @defaultValue true
   */
  readonly strays?: boolean
  /** At most this many sentences. @defaultValue 6 */
  readonly maxSentences?: number
}

/** The labels of text without markup (internal; also for `proseMentions`). */
export const noLabels: Labels = { tools: [], recoverable: false, calls: [] }

/** Plain words of prose (internal; also for `proseMentions`). */
export const words: readonly string[] = [
  "I'll",
  "check",
  "the",
  "file",
  "first",
  "then",
  "read",
  "call",
  "function",
  "tool",
  "parameter",
  "value",
  "result",
  "config",
  "weather",
  "Paris",
  "done",
  "so",
  "if",
  "and",
  "Let",
  "me",
  "it",
  "works",
  "北京",
  "naïve",
  "😀",
  "👩‍💻",
  "𝒳",
]

/** Text around `<` that is not a tag, and HTML/JSX/XML that is not tool markup. */
const angles = [
  "a < b",
  "x <= y",
  "i<n",
  "1 << 4",
  "a <- b",
  "0 < x > -1",
  '<div className="card">',
  "</div>",
  "<br/>",
  "<p>hi</p>",
  "<ul><li>item</li></ul>",
  '<a href="https://example.com/?a=1&b=2">link</a>',
  "<Button onClick={() => go(a < b)} />",
  "<T,>(x: T) => x",
  "Array<string>",
  "Map<string, number[]>",
  "<!-- note -->",
  '<?xml version="1.0"?>',
  '<svg viewBox="0 0 1 1"/>',
  "<script>",
  "&lt;tool_call&gt;",
]

/** C++ that is full of angle brackets. */
const cpp = [
  "#include <functional>",
  "#include <vector>",
  "std::function<void(int)>",
  "std::vector<std::map<int, int>>",
  "template <typename T>",
  "static_cast<int>(x)",
]

/**
 * Near misses: prefixes and cousins of real markers that are not markers. Each stops short of,
 * or departs from, every envelope and call header in FORMATS.md.
 */
const nearMisses = [
  "<function>",
  "<functional>",
  "<func",
  "<tool_callback>",
  "<tool_call_id>",
  "</tool_call_id>",
  "<tools-panel>",
  "<invoked/>",
  "<parameter_list>",
  "<arg_keys>",
  "<minimax:note>",
  "]<]minimax",
  "<seed:tip>",
  "[TOOL_CALL]",
  "[TOOL]",
  "[ARG]",
  "functools.partial(f)",
  "Action: none",
  "call:me",
  "to=function",
  "<|im_end|>",
  "<｜end▁of▁sentence｜>",
  ">>> print(1)",
  "<start_function>",
  "<TOOLS>",
  "<function_call_output>",
]

const tildes = ["~/.config", "~~strike~~", "a ~ b", "~~~ not a fence", "~"]

/** Balanced inline code spans (backtick runs matched by a run of the same length). */
const inlineCode = ["`npm install`", "`a < b`", "``a ` b``", "`<div>`", "`#include <map>`", "`~`"]

const strays = ["`", "``", "a`b"]

/** Markup-free fenced blocks; they start and end on their own lines. */
const fencedBlocks = [
  "```ts\nconst ok = a < b && c > d\n```",
  "```cpp\n#include <functional>\nstd::function<int(int)> f;\n```",
  "~~~\n<div>not a call</div>\n~~~",
  "````md\n```\nnested fence text\n```\n````",
  "```\nplain\n```",
]

function sentence(options: ProseOptions): fc.Arbitrary<string> {
  const pieces: Array<fc.WeightedArbitrary<string>> = [
    { weight: 6, arbitrary: fc.constantFrom(...words) },
    { weight: 3, arbitrary: fc.constantFrom(...angles) },
    { weight: 1, arbitrary: fc.constantFrom(...cpp) },
    { weight: 3, arbitrary: fc.constantFrom(...nearMisses) },
    { weight: 1, arbitrary: fc.constantFrom(...tildes) },
  ]
  if (options.code !== false) pieces.push({ weight: 2, arbitrary: fc.constantFrom(...inlineCode) })
  if (options.code !== false && options.strays !== false)
    pieces.push({ weight: 1, arbitrary: fc.constantFrom(...strays) })
  // A sentence starts with a plain word, so no line starts with a fence, `>>>` or `#`.
  return fc
    .tuple(
      fc.constantFrom(...words.slice(0, 24)),
      fc.array(fc.oneof(...pieces), { maxLength: 8 }),
      fc.constantFrom(".", ":", "!", "?", ""),
    )
    .map(([first, rest, end]) => [first, ...rest].join(" ") + end)
}

/**
 * Ordinary answer text with no tool-call markup in it, built to tempt a detector: comparisons
 * and shifts (`a < b`, `1 << 4`), HTML and JSX, C++ includes and templates, inline code spans
 * and markup-free fenced blocks, tildes, emoji and CJK text, and near-miss markers such as
 * `<tool_call_id>`, `<functional>`, `[TOOL_CALL]` or `&lt;tool_call&gt;`. Its labels are empty:
 * a detector must report nothing and show every character.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { prose } from "@tool-rescue/testing"
 *
 * fc.assert(fc.property(prose(), ({ text }) => scan(text, { tools: ["read_file"] }).text === text))
 * ```
 */
export function prose(options: ProseOptions = {}): fc.Arbitrary<Sample<Labels>> {
  const maxSentences = Math.max(1, options.maxSentences ?? 6)
  const paragraph = fc
    .tuple(fc.array(sentence(options), { minLength: 1, maxLength: 3 }), fc.constantFrom(" ", "\n"))
    .map(([sentences, joiner]) => sentences.join(joiner))
  const block =
    options.code === false
      ? paragraph
      : fc.oneof(
          { weight: 4, arbitrary: paragraph },
          { weight: 1, arbitrary: fc.constantFrom(...fencedBlocks) },
        )
  return fc
    .tuple(paragraph, fc.array(block, { maxLength: Math.max(0, Math.ceil(maxSentences / 2) - 1) }))
    .map(([first, rest]) => ({ text: [first, ...rest].join("\n\n"), labels: noLabels }))
}
