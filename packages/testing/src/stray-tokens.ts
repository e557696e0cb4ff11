/**
 * `strayTokens()`: a format family's special tokens alone in prose, in every spelling its
 * tokenizers and peer parsers accept (ARCHITECTURE.md#policy: an envelope or special token with no
 * call after it is withheld and reported, never shown). The spellings are written out here from
 * their sources, not taken from the detector's table.
 */

import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import type { Labels, Sample } from "./labels.ts"
import { DSML_ENVELOPES, DSML_MARKERS } from "./leak-formats.ts"
import { noLabels, words } from "./prose.ts"

/**
 * What a lone token leaves due: an opener or a call's own token leaves its envelope open; a closer ends it.
 *
 * @example
 * ```ts
 * import type { StrayTokenRole } from "@tool-rescue/testing"
 *
 * const closes = (role: StrayTokenRole) => role === "close"
 * ```
 */
export type StrayTokenRole = "open" | "call" | "close"

/**
 * One lone token in a {@link strayTokens} value.
 *
 * @example
 * ```ts
 * import type { StrayToken } from "@tool-rescue/testing"
 *
 * const token: StrayToken = { format: "hunyuan", role: "close", text: "</tool_call:opensource>" }
 * ```
 */
export interface StrayToken {
  readonly format: FormatId
  readonly role: StrayTokenRole
  /** The token as written. */
  readonly text: string
}

/**
 * Labels of a {@link strayTokens} value: no call, the tokens to withhold and the prose to show.
 *
 * @example
 * ```ts
 * import type { StrayTokenLabels } from "@tool-rescue/testing"
 *
 * const formats = (labels: StrayTokenLabels) => labels.tokens.map((token) => token.format)
 * ```
 */
export interface StrayTokenLabels extends Labels {
  readonly calls: readonly []
  /** Every lone token, in order: each is withheld and reported as one markup of its format, naming no tool. */
  readonly tokens: readonly StrayToken[]
  /** The text without its tokens: exactly what is shown. */
  readonly visible: string
}

/**
 * Options of {@link strayTokens}.
 *
 * @example
 * ```ts
 * import { strayTokens } from "@tool-rescue/testing"
 *
 * const hunyuanOnly = strayTokens({ format: "hunyuan" })
 * ```
 */
export interface StrayTokensOptions {
  /** The families to draw tokens from. @defaultValue every family below */
  readonly format?: FormatId | readonly FormatId[]
}

/**
 * Hunyuan HY v4's vocabulary suffix: any text after the `:` (vLLM `hy_v4_tool_parser` reads it
 * from the tokenizer; its tests use `:opensource` and `:a+b(c`).
 */
const suffix = fc
  .string({
    unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789_+-(."),
    minLength: 1,
    maxLength: 12,
  })
  .map((s) => `:${s}`)

/** HY v4: each tag of the format with the suffix; `</…>` closes, the section tag opens, the rest are a call's. */
const hunyuan: fc.Arbitrary<StrayToken> = fc
  .tuple(fc.constantFrom("tool_calls", "tool_call", "arg_key", "arg_value"), fc.boolean(), suffix)
  .map(([tag, closing, sfx]) => ({
    format: "hunyuan",
    role: closing ? "close" : tag === "tool_calls" ? "open" : "call",
    text: `<${closing ? "/" : ""}${tag}${sfx}>`,
  }))

/** DSML's marker spellings around its envelope names, or closing an invoke or a parameter (FORMATS.md, deepseek-dsml). */
const dsml: fc.Arbitrary<StrayToken> = fc
  .tuple(
    fc.constantFrom(...DSML_MARKERS),
    fc.constantFrom(...DSML_ENVELOPES, "invoke", "parameter"),
    fc.boolean(),
    fc.constantFrom("", " "),
  )
  .map(([d, tag, closing, space]) => {
    // Only an envelope opens; an invoke or a parameter alone is drawn as its closer.
    const close = closing || tag === "invoke" || tag === "parameter"
    return {
      format: "deepseek-dsml",
      role: close ? "close" : "open",
      text: close ? `</${d}${tag}>` : `<${d}${tag}${space}>`,
    }
  })

/** Kimi K3's section and call markers (`<|open|>` and `<|close|>` are special tokens), also spaced by a detokenizer. */
const kimiK3: fc.Arbitrary<StrayToken> = fc
  .tuple(
    fc.constantFrom(
      { role: "open", token: "<|open|>", tag: "tools" },
      { role: "close", token: "<|close|>", tag: "tools" },
      { role: "close", token: "<|close|>", tag: "call" },
    ),
    fc.constantFrom("", " "),
  )
  .map(([{ role, token, tag }, sp]) => ({
    format: "kimi-k3",
    role: role as StrayTokenRole,
    text: `${token}${sp}${tag}${sp}<|sep|>`,
  }))

/** MiniMax M3's tags, each after its namespace token `]<]minimax[>[`. */
const minimaxM3: fc.Arbitrary<StrayToken> = fc.constantFrom<StrayToken>(
  { format: "minimax-m3", role: "open", text: "]<]minimax[>[<tool_call>" },
  { format: "minimax-m3", role: "close", text: "]<]minimax[>[</tool_call>" },
  { format: "minimax-m3", role: "close", text: "]<]minimax[>[</invoke>" },
)

/** PLaMo 3's begin and end tags (vLLM `plamo3_reasoning_parser.py`): a special prefix token, the tag's name, a special suffix token. */
const plamo3: fc.Arbitrary<StrayToken> = fc
  .constantFrom<[StrayTokenRole, "begin" | "end", string]>(
    ["open", "begin", "tool_requests"],
    ["call", "begin", "tool_request"],
    ["call", "begin", "tool_name"],
    ["call", "begin", "tool_arguments"],
    ["close", "end", "tool_requests"],
    ["close", "end", "tool_request"],
    ["close", "end", "tool_name"],
    ["close", "end", "tool_arguments"],
  )
  .map(([role, edge, tag]) => ({ format: "plamo3", role, text: `<|plamo:${edge}_${tag}:plamo|>` }))

/** Upstage Solar Open 2's call and argument tokens (vLLM `tests/tool_parsers/test_solar_open2_tool_parser.py`). */
const solarOpen2: fc.Arbitrary<StrayToken> = fc.constantFrom<StrayToken>(
  { format: "solar-open2", role: "open", text: "<|tool_call:start|>" },
  { format: "solar-open2", role: "call", text: "<|tool_arg:start|>" },
  { format: "solar-open2", role: "call", text: "<|tool_arg:value|>" },
  { format: "solar-open2", role: "close", text: "<|tool_arg:end|>" },
  { format: "solar-open2", role: "close", text: "<|tool_call:end|>" },
)

/** K2 Horizon's `<ifm|…>` tokens (vLLM `tests/tool_parsers/test_k2_horizon_tool_parser.py`). */
const k2Horizon: fc.Arbitrary<StrayToken> = fc.constantFrom<StrayToken>(
  { format: "k2-horizon", role: "open", text: "<ifm|tool_calls>" },
  { format: "k2-horizon", role: "call", text: "<ifm|tool_call>" },
  { format: "k2-horizon", role: "call", text: "<ifm|arg_value>" },
  { format: "k2-horizon", role: "close", text: "</ifm|tool_call>" },
  { format: "k2-horizon", role: "close", text: "</ifm|tool_calls>" },
)

/**
 * The envelopes other vocabularies put around GLM 4.7's call: iQuest-Coder V2's (vLLM
 * `tests/tool_parsers/test_iquest_coder_v2_tool_parser.py`) and IQuest Q1's (SGLang `iquest_q1_detector.py`).
 */
const glmEnvelopes: fc.Arbitrary<StrayToken> = fc.constantFrom<StrayToken>(
  { format: "glm", role: "open", text: "<iquestcoder_tool_call>" },
  { format: "glm", role: "close", text: "</iquestcoder_tool_call>" },
  { format: "glm", role: "open", text: "<iquest_tool_call>" },
  { format: "glm", role: "close", text: "</iquest_tool_call>" },
)

/**
 * dots' opener (vLLM `tests/tool_parsers/test_dots_tool_parser.py`), also with its `<` written `>` as it
 * leaked live. (Its closer alone is shown: FORMATS.md, dots.)
 */
const dots: fc.Arbitrary<StrayToken> = fc.constantFrom<StrayToken>(
  { format: "dots", role: "open", text: "<dots_function_call>" },
  { format: "dots", role: "open", text: ">dots_function_call>" },
)

/** Inkling's invoke block token (vLLM `tests/parser/engine/test_inkling.py`). */
const inkling: fc.Arbitrary<StrayToken> = fc.constant<StrayToken>({
  format: "inkling",
  role: "open",
  text: "<|content_invoke_tool_json|>",
})

const FAMILIES: ReadonlyMap<FormatId, fc.Arbitrary<StrayToken>> = new Map<FormatId, fc.Arbitrary<StrayToken>>(
  [
    ["hunyuan", hunyuan],
    ["deepseek-dsml", dsml],
    ["kimi-k3", kimiK3],
    ["minimax-m3", minimaxM3],
    ["plamo3", plamo3],
    ["inkling", inkling],
    ["solar-open2", solarOpen2],
    ["k2-horizon", k2Horizon],
    ["glm", glmEnvelopes],
    ["dots", dots],
  ],
)

/**
 * Prose with a family's special tokens alone in it, mid-sentence — `See </tool_call:opensource>
 * here.`, `Wrap the call in <｜DSML｜tool_calls> and close it.` — each followed by a plain word (no
 * call the table knows). Labels: every token is withheld and reported, naming no tool; what is
 * shown is the text without them (`labels.visible`).
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { strayTokens } from "@tool-rescue/testing"
 *
 * fc.assert(
 *   fc.property(strayTokens(), ({ text, labels }) => {
 *     const { text: shown, markup } = scan(text, { tools: ["bash"] })
 *     return shown === labels.visible && markup.length === labels.tokens.length
 *   }),
 * )
 * ```
 */
export function strayTokens(options: StrayTokensOptions = {}): fc.Arbitrary<Sample<StrayTokenLabels>> {
  const requested =
    options.format === undefined
      ? [...FAMILIES.keys()]
      : typeof options.format === "string"
        ? [options.format]
        : options.format
  const families = requested.map((id) => {
    const family = FAMILIES.get(id)
    if (family === undefined)
      throw new TypeError(`strayTokens: no special tokens known for ${JSON.stringify(id)}`)
    return family
  })
  const plain = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }).map((w) => w.join(" "))
  const sentence = fc
    .tuple(plain, fc.oneof(...families), plain, fc.constantFrom(".", "!", ":"))
    .map(([before, token, after, end]) => ({ before: `${before} `, token, after: ` ${after}${end}` }))
  return fc
    .tuple(fc.array(sentence, { minLength: 1, maxLength: 3 }), fc.constantFrom(" ", "\n", "\n\n"))
    .map(([sentences, joiner]) => {
      const text = sentences.map((s) => s.before + s.token.text + s.after).join(joiner)
      const visible = sentences.map((s) => s.before + s.after).join(joiner)
      return { text, labels: { ...noLabels, calls: [], tokens: sentences.map((s) => s.token), visible } }
    })
}
