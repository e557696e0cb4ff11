/**
 * `offeredInStep()` and `proseTagMentions()`: what the tools offered in one step and the tags prose
 * names must not change (ARCHITECTURE.md#policy): an envelope token is withheld and reported
 * whatever tool it names, and a tag named in prose (`Use <think> for reasoning.`) is shown and
 * starts nothing.
 */

import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import {
  type CallLabel,
  type Labels,
  type LeakLabels,
  type LeakVariant,
  labelsOf,
  type Sample,
} from "./labels.ts"
import { formatSpecs } from "./leak-formats.ts"
import { leakedCall, requestedFormats } from "./leaked-call.ts"
import { words } from "./prose.ts"

/**
 * Options of {@link offeredInStep}.
 *
 * @example
 * ```ts
 * import { offeredInStep } from "@tool-rescue/testing"
 *
 * const steps = offeredInStep({ tools: ["Read", "Bash", "Glob"] })
 * ```
 */
export interface OfferedInStepOptions {
  /** The tools the calls name (the whole toolkit, before a step narrows it). */
  readonly tools: readonly string[]
  /** The format(s) to write. @defaultValue every default format with an envelope */
  readonly format?: FormatId | readonly FormatId[]
}

/** Labels of an {@link offeredInStep} value: the leak's, relative to the tools offered in the step. */
export interface StepLabels extends LeakLabels {
  /** The tools offered in this step (`activeTools`, or the toolkit after a tool was removed): pass these to the detector. */
  readonly offered: readonly string[]
}

/** The variants that keep an envelope token: the whole call, or the call without one of its markers. */
const ENVELOPED: readonly LeakVariant[] = [
  "complete",
  "missing-opening",
  "missing-closing",
  "repeated-closing",
]

/**
 * A leak that carries an envelope token, and the tools offered in the step it was written in: any
 * subset of the toolkit, often without the tool the call names (the AI SDK's `activeTools`, a
 * tool removed since the last turn), but always with the tool of a call cut off before its closer
 * (its opener alone, a tag prose writes, is no envelope token). The labels are relative to that step: a call naming a tool
 * outside it is reported with `offered: false` and is not recoverable; every envelope token is
 * withheld all the same. Bare headers and start-anchored calls, which carry no envelope token,
 * are not drawn.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { offeredInStep } from "@tool-rescue/testing"
 *
 * fc.assert(
 *   fc.property(offeredInStep({ tools: ["Read", "Bash"] }), ({ text, labels }) => {
 *     const { markup } = scan(text, { tools: labels.offered })
 *     return markup.length === labels.calls.length
 *   }),
 * )
 * ```
 */
export function offeredInStep(options: OfferedInStepOptions): fc.Arbitrary<Sample<StepLabels>> {
  const requested = requestedFormats(options.format)
  // Formats whose calls an envelope token marks, whatever they name.
  const format = requested.filter((id) => {
    const spec = formatSpecs.get(id)
    return spec !== undefined && !spec.startAnchored && spec.nameGated !== true
  })
  if (format.length === 0) throw new TypeError("offeredInStep: no requested format has an envelope token")
  return fc
    .tuple(
      leakedCall({ tools: options.tools, format, variants: ENVELOPED, anchored: "exclude" }),
      fc.subarray([...options.tools]),
    )
    .map(([leak, drawn]) => {
      // A call cut off before its closer carries only its opener and name; where the opener is a tag
      // prose writes (GLM's `<tool_call>NAME` at the end of the stream), only an offered name makes
      // it a call. So the step offers the tool of a call that lost its closer.
      const cut = leak.labels.variant === "missing-closing" ? leak.labels.calls.at(-1)?.toolName : undefined
      const offered = cut === undefined || drawn.includes(cut) ? drawn : [...drawn, cut]
      const calls = leak.labels.calls.map(
        (call): CallLabel => ({
          ...call,
          offered: offered.includes(call.toolName),
          recoverable: call.recoverable && offered.includes(call.toolName),
        }),
      )
      return { text: leak.text, labels: { ...leak.labels, ...labelsOf(calls), offered } }
    })
}

/**
 * Options of {@link proseTagMentions}.
 *
 * @example
 * ```ts
 * import { proseTagMentions } from "@tool-rescue/testing"
 *
 * const mentions = proseTagMentions({ tools: ["read_file"] })
 * ```
 */
export interface ProseTagMentionsOptions {
  /** The tools offered; the call that may follow the prose names one of them. */
  readonly tools: readonly string[]
}

/** Labels of a {@link proseTagMentions} value. */
export interface TagMentionLabels extends Labels {
  /** The prose that names the tags: shown whole, at the start of the visible text. */
  readonly prose: string
}

/**
 * Tags and tokens as prose names them mid-sentence: reasoning openers and closers, envelope tags,
 * chat-template tokens. None opens anything there: reasoning starts only where the reasoning block
 * opens (the start of the answer, or a format's reasoning token), and a tag with no call after it is text.
 */
const TAG_MENTIONS = [
  "<think>",
  "</think>",
  "<thinking>",
  "</thinking>",
  "<tool_call>",
  "</tool_call>",
  "<tool_calls>",
  "<function_calls>",
  "<arg_key>",
  "<|im_start|>",
  // LM Studio's request markers: its tool-use prompt's plain-text convention, not special tokens.
  "[TOOL_REQUEST]",
  "[END_TOOL_REQUEST]",
  "[TOOL_REQUEST_END]",
]

/**
 * Prose that names tags mid-sentence — `Use <think> for reasoning.`, `Wrap it in <tool_call>
 * tags.` — never at the start of the answer, then (sometimes) a complete leaked call on a new
 * paragraph. Labels: the prose is shown whole, and the call, if any, is reported outside
 * reasoning (a `<think>` named in prose opens no reasoning block).
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan } from "@tool-rescue/detector"
 * import { proseTagMentions } from "@tool-rescue/testing"
 *
 * const tools = ["read_file"]
 * fc.assert(
 *   fc.property(proseTagMentions({ tools }), ({ text, labels }) =>
 *     scan(text, { tools }).text.startsWith(labels.prose),
 *   ),
 * )
 * ```
 */
export function proseTagMentions(options: ProseTagMentionsOptions): fc.Arbitrary<Sample<TagMentionLabels>> {
  const sentence = fc
    .tuple(
      fc.constantFrom(...words.slice(0, 24)),
      fc.array(fc.oneof(fc.constantFrom(...words), fc.constantFrom(...TAG_MENTIONS)), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.constantFrom(...TAG_MENTIONS),
      fc.constantFrom(".", ":", "!"),
    )
    .map(([first, rest, tag, end]) => `${[first, ...rest].join(" ")} ${tag} ${words[0]}${end}`)
  const call = leakedCall({
    tools: options.tools,
    format: ["hermes", "qwen3-coder", "kimi-k2", "deepseek-v3", "lmstudio"],
    variants: ["complete"],
    maxCalls: 1,
  })
  return fc
    .tuple(
      fc.array(sentence, { minLength: 1, maxLength: 3 }).map((s) => s.join(" ")),
      fc.option(call, { nil: undefined }),
    )
    .map(([prose, leak]): Sample<TagMentionLabels> => {
      if (leak === undefined) return { text: prose, labels: { ...labelsOf([]), prose } }
      return { text: `${prose}\n\n${leak.text}`, labels: { ...leak.labels, prose } }
    })
}
