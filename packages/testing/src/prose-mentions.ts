/**
 * `proseMentions()`: prose that names call headers, envelope tags and tool names without a call's
 * structure, which a detector must show whole (ARCHITECTURE.md#policy, "withhold only what is a call").
 */
import fc from "fast-check"
import type { Labels, Sample } from "./labels.ts"
import { noLabels, words } from "./prose.ts"

/**
 * Options of {@link proseMentions}.
 *
 * @example
 * ```ts
 * import { proseMentions } from "@tool-rescue/testing"
 *
 * const mentions = proseMentions({ tools: ["read_file", "bash"] })
 * ```
 */
export interface ProseMentionsOptions {
  /** Tool names the prose mentions (offered ones are the hard case). */
  readonly tools: readonly string[]
  /** At most this many sentences. @defaultValue 4 */
  readonly maxSentences?: number
}

/**
 * The ways prose names a call header, an envelope tag or a tool without a call's structure:
 * ARCHITECTURE.md#policy, "withhold only what is a call" (issue 13). Each is followed by a plain word in the
 * sentence, so no parameter tag, payload or closer confirms it.
 */
const mentionsOf = (tool: string): string[] => [
  `<function=${tool}>`,
  `<invoke name="${tool}">`,
  `<x:invoke name="${tool}">`,
  `/api/<function=${tool}>/status`,
  `<|start|>assistant to=functions.${tool}`,
  `to=functions.${tool}`,
  `<tool_call>${tool}`,
  `{"name": "${tool}"}`,
  `"${tool}"`,
  tool,
  "<tool_call>",
  "</tool_call>",
  "<function_calls>",
  "</function>",
  "<parameter=path>",
  // Tags that other formats' calls open with, named alone (`cwm`, `rwkv`, Step-Audio 2's `hermes`).
  "<tool: function>",
  "**Tool Call:**",
  "<tool_call>function",
  "</dots_function_call>",
]

/** Plain words to follow a mention (none of them continues a header: no `json`, no `{`). */
const followers = ["followed", "by", "parameters", "and", "the", "tag", "means", "a", "call", "here"]

/**
 * Prose that names headers, envelope tags and tool names — `Qwen models emit <function=read_file>
 * followed by parameters`, a bare `<invoke name="read_file">`, `/api/<function=read_file>/status`,
 * Harmony's `<|start|>assistant to=functions.bash` — without any call's structure. Its labels are
 * empty: a detector must show every character and report nothing, under any chunking.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { proseMentions } from "@tool-rescue/testing"
 *
 * const tools = ["read_file", "bash"]
 * fc.assert(fc.property(proseMentions({ tools }), ({ text }) => scan(text, { tools }).text === text))
 * ```
 */
export function proseMentions(options: ProseMentionsOptions): fc.Arbitrary<Sample<Labels>> {
  if (options.tools.length === 0) throw new TypeError("proseMentions: `tools` is empty")
  const mentions = options.tools.flatMap(mentionsOf)
  const pair = fc
    .tuple(fc.constantFrom(...mentions), fc.constantFrom(...followers))
    .map(([mention, word]) => `${mention} ${word}`)
  const sentence = fc
    .tuple(
      fc.constantFrom(...words.slice(0, 24)),
      fc.array(
        fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...words) }, { weight: 1, arbitrary: pair }),
        {
          minLength: 1,
          maxLength: 6,
        },
      ),
      fc.constantFrom(".", ":", "!", "?"),
    )
    .map(([first, rest, end]) => [first, ...rest].join(" ") + end)
  return fc
    .tuple(
      fc.array(sentence, { minLength: 1, maxLength: Math.max(1, options.maxSentences ?? 4) }),
      fc.constantFrom(" ", "\n", "\n\n"),
    )
    .map(([sentences, joiner]) => ({ text: sentences.join(joiner), labels: noLabels }))
}
