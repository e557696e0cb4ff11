/**
 * The labels every generated value carries: what a correct detector must report for it under
 * the default policy (`evidence: "structure"`, `reasoning: "auto"`).
 */
import type { FormatId } from "@tool-rescue/detector"

/**
 * How a leaked call departs from its format's canonical shape:
 * - `complete`: the whole call with both envelope markers;
 * - `missing-opening`: the opening envelope marker is absent (the inner call header remains);
 * - `missing-closing`: the closing envelope marker of the last call is absent (the response ends there);
 * - `bare`: neither envelope marker, only the inner call structure;
 * - `truncated`: the response stops inside a parameter value of the last call;
 * - `repeated-closing`: the whole call, then its closing tag or token written a second time
 *   (`</tool_call>\n</tool_call>`): the repeat is withheld with the call.
 *
 * @example
 * ```ts
 * import { leakedCall, type LeakVariant } from "@tool-rescue/testing"
 *
 * const cutOff: LeakVariant[] = ["missing-closing", "truncated"]
 * const arbitrary = leakedCall({ tools: ["bash"], variants: cutOff })
 * ```
 */
export type LeakVariant =
  | "complete"
  | "missing-opening"
  | "missing-closing"
  | "bare"
  | "truncated"
  | "repeated-closing"

/**
 * One call the detector must report as one `Markup`, in order. A field is `undefined` where
 * FORMATS.md leaves the answer open (e.g. whether the first of two calls in one shared envelope
 * "saw" the closing marker, or what counts as the envelope of a start-anchored format): assert
 * only the defined fields.
 *
 * @example
 * ```ts
 * import type { Markup } from "@tool-rescue/detector"
 * import type { CallLabel } from "@tool-rescue/testing"
 *
 * const matches = (label: CallLabel, markup: Markup) =>
 *   markup.toolName === label.toolName &&
 *   (markup.format === label.format || label.formatAliases.includes(markup.format)) &&
 *   (label.complete === undefined || markup.complete === label.complete)
 * ```
 */
export interface CallLabel {
  /** The format the call is written in. */
  readonly format: FormatId
  /**
   * Other format ids whose text shape this call also matches, so a detector may report any of
   * them (Jamba and Apriel write the same text; `<function_call>{…}` is Granite-20b and one of
   * llama.cpp's Hermes tags; `<invoke name=…>` without its envelope is MiniMax M2 or Anthropic XML).
   */
  readonly formatAliases: readonly FormatId[]
  /** The tool the call names. */
  readonly toolName: string
  /** The name is one of the offered tools. */
  readonly offered: boolean
  /** The opening envelope marker is in the text. */
  readonly opening: boolean | undefined
  /** The closing envelope marker is in the text. */
  readonly closing: boolean | undefined
  /** The call ended normally (not cut off by the end of the text). */
  readonly complete: boolean | undefined
  /** The call sits inside a reasoning block. */
  readonly inReasoning: boolean
  /** Visible non-whitespace text follows the reasoning block that holds the call. */
  readonly answerFollows: boolean
  /** `isRecoverable` under the default policy. */
  readonly recoverable: boolean
}

/**
 * Labels of any generated text.
 *
 * @example
 * ```ts
 * import type { Labels } from "@tool-rescue/testing"
 *
 * const expectRetry = (labels: Labels) => labels.recoverable // recovery should retry
 * ```
 */
export interface Labels {
  /** The offered tools named by recoverable calls, in order (a repeated call repeats the name): what recovery acts on. */
  readonly tools: readonly string[]
  /** Some call is recoverable (`tools.length > 0`). */
  readonly recoverable: boolean
  /** Every call a detector must report, in order (recoverable or not). Empty for text with no markup. */
  readonly calls: readonly CallLabel[]
}

/**
 * Labels of a `leakedCall` value.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { leakedCall } from "@tool-rescue/testing"
 *
 * const [leak] = fc.sample(leakedCall({ tools: ["bash"], format: "hermes" }), 1)
 * leak?.labels.format // "hermes"
 * ```
 */
export interface LeakLabels extends Labels {
  /** The format the calls are written in. */
  readonly format: FormatId
  /** How the calls depart from the canonical shape. */
  readonly variant: LeakVariant
  /** A start-anchored format (bare JSON or a pythonic list): evidence only at the start of a response. */
  readonly startAnchored: boolean
  /** The text ends with the envelope closed, so more text may follow it. */
  readonly closed: boolean
}

/**
 * Labels of a `fencedExample` or `inlineCodeExample` value: markup that must stay text.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { fencedExample } from "@tool-rescue/testing"
 *
 * const [example] = fc.sample(fencedExample(), 1)
 * example?.labels.calls // []
 * ```
 */
export interface ExampleLabels extends Labels {
  readonly tools: readonly []
  readonly recoverable: false
  readonly calls: readonly []
  /** The format of the markup shown in the example. */
  readonly format: FormatId
  /** A fenced block that is never closed (it runs to the end of the text). */
  readonly unclosed: boolean
}

/**
 * A generated text with its labels.
 *
 * @example
 * ```ts
 * import type { Sample } from "@tool-rescue/testing"
 *
 * const show = ({ text, labels }: Sample) => `${JSON.stringify(text)} → ${labels.tools.join(", ")}`
 * ```
 */
export interface Sample<L extends Labels = Labels> {
  readonly text: string
  readonly labels: L
}

/** Builds {@link Labels} from the calls (the tools of the recoverable ones, in order). */
export function labelsOf(calls: readonly CallLabel[]): Labels {
  const tools = calls.filter((call) => call.recoverable).map((call) => call.toolName)
  return { tools, recoverable: tools.length > 0, calls }
}
