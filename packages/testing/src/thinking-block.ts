/**
 * `thinkingBlock()`: a reasoning block written into the content (`<think>…</think>` and its
 * cousins), sometimes holding a tool call the model rehearses — or, for Kimi-K2-Thinking and
 * MiniMax, really makes — inside its reasoning.
 */
import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import type { CallLabel, Labels, Sample } from "./labels.ts"
import { labelsOf } from "./labels.ts"
import { defaultFormats, leakedCall } from "./leaked-call.ts"
import { prose } from "./prose.ts"

/**
 * The reasoning delimiters `thinkingBlock()` writes into content.
 *
 * @example
 * ```ts
 * import { reasoningDelimiters } from "@tool-rescue/testing"
 *
 * reasoningDelimiters[0] // ["<think>", "</think>"]
 * ```
 */
export const reasoningDelimiters: ReadonlyArray<readonly [string, string]> = [
  ["<think>", "</think>"],
  ["[THINK]", "[/THINK]"],
  ["<seed:think>", "</seed:think>"],
  ["<mm:think>", "</mm:think>"],
  ["<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"],
  ["<|think:start|>", "<|think:end|>"],
]

/**
 * Options of {@link thinkingBlock}.
 *
 * @example
 * ```ts
 * import { thinkingBlock } from "@tool-rescue/testing"
 *
 * const kimiStyle = thinkingBlock({ tools: ["bash"], format: "kimi-k2", call: "always" })
 * ```
 */
export interface ThinkingBlockOptions {
  /** The tools offered this turn (a call inside names these). */
  readonly tools: readonly string[]
  /** The format(s) of a call inside. @defaultValue every format but `cline-xml` */
  readonly format?: FormatId | readonly FormatId[]
  /** How often a call appears inside: `"never"`, `"sometimes"` or `"always"`. @defaultValue "sometimes" */
  readonly call?: "never" | "sometimes" | "always"
}

/**
 * Labels of a thinking block: its calls are `inReasoning`, and nothing follows it yet (`answerFollows: false`).
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { thinkingBlock } from "@tool-rescue/testing"
 *
 * const [block] = fc.sample(thinkingBlock({ tools: ["bash"] }), 1)
 * block?.labels.delimiters // e.g. ["<think>", "</think>"]
 * ```
 */
export interface ThinkingLabels extends Labels {
  /** The delimiters used. */
  readonly delimiters: readonly [string, string]
}

/**
 * A reasoning block in the content — `<think>…</think>`, `[THINK]…[/THINK]` or
 * `<seed:think>…</seed:think>` around markup-free prose — that may hold a complete tool call
 * (any format with a closing marker). The labels mark its calls `inReasoning` with no answer
 * following, hence recoverable under `reasoning: "auto"` when the tool is offered; `response()`
 * relabels them (`answerFollows`) when visible text comes after the block.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { thinkingBlock } from "@tool-rescue/testing"
 *
 * fc.sample(thinkingBlock({ tools: ["read_file"], call: "always" }), 1)[0]?.labels.calls[0]?.inReasoning // true
 * ```
 */
export function thinkingBlock(options: ThinkingBlockOptions): fc.Arbitrary<Sample<ThinkingLabels>> {
  const inner = leakedCall({
    tools: options.tools,
    format: options.format ?? defaultFormats,
    closedOnly: true,
    anchored: "exclude",
    maxCalls: 2,
  })
  const mode = options.call ?? "sometimes"
  const call =
    mode === "never" ? fc.constant(null) : mode === "always" ? inner : fc.option(inner, { nil: null })
  // No code in reasoning prose: an inline span or a fence would change what the call inside is.
  const thought = prose({ code: false, maxSentences: 2 })
  return fc
    .record({
      delimiters: fc.constantFrom(...reasoningDelimiters),
      before: thought,
      call,
      after: fc.option(thought, { nil: null }),
    })
    .map(({ delimiters, before, call: leak, after }) => {
      const [open, close] = delimiters
      const body = [before.text, leak?.text, after?.text].filter((part) => part !== undefined).join("\n\n")
      const calls = (leak?.labels.calls ?? []).map((label): CallLabel => ({ ...label, inReasoning: true }))
      return {
        text: `${open}\n${body}\n${close}`,
        labels: { ...labelsOf(calls), delimiters },
      }
    })
}
