/**
 * Public types of `@tool-rescue/detector`. The names and fields are a contract (see the package's
 * README.md#what-is-reported): other packages and outside checks rely on them.
 */

import type { FormatId } from "./format-ids.ts"

/**
 * One tool call written as text, found in the stream.
 * @example
 * ```ts
 * const [m] = scan('<tool_call>{"name": "read_file", "arguments": {}}</tool_call>', { tools: ["read_file"] }).markup
 * // m: { format: "hermes", toolName: "read_file", offered: true, opening: true, closing: true,
 * //      structured: true, complete: true, inReasoning: false, answerFollows: false, start: 0, end: 61 }
 * ```
 */
export interface Markup {
  /** The format the markup was recognised as. */
  readonly format: FormatId
  /** The tool the markup names, when a name could be read. */
  readonly toolName: string | undefined
  /** `toolName` is one of the tools offered this turn. */
  readonly offered: boolean
  /** The format's opening envelope marker was seen (a lone per-call marker such as `<|tool_call_begin|>` is not one). */
  readonly opening: boolean
  /** The format's closing envelope marker was seen. */
  readonly closing: boolean
  /** The inner call syntax was recognised (a function header followed by a parameter tag or a function close). */
  readonly structured: boolean
  /**
   * The markup ended normally: `false` when the stream ended inside the call, or after it with its
   * envelope still open (the format's closing marker was due and never came). A closer that servers
   * strip or that the format may omit (Llama's `<|eom_id|>`, stripped Harmony, granite-20b-fc) is not due.
   */
  readonly complete: boolean
  /** The markup sits inside a reasoning block (`<think>`, `[THINK]`, `<seed:think>`, Harmony analysis). */
  readonly inReasoning: boolean
  /** Visible non-whitespace text followed the reasoning block that holds the markup; known at `end()`. */
  readonly answerFollows: boolean
  /** UTF-16 offset of the first withheld character in the whole stream. */
  readonly start: number
  /** UTF-16 offset one past the last withheld character in the whole stream. */
  readonly end: number
}

/**
 * What `push`, `end` and `scan` return.
 * @example
 * ```ts
 * const { text, markup, withheld, decided }: DetectorResult = detector.push(delta)
 * show(text) // safe to display now: the input up to `decided`, minus the `withheld` spans
 * ```
 */
export interface DetectorResult {
  /**
   * Newly released visible text, in stream order, never holding a withheld character: after each
   * push, the text so far is the input without its last `held()` characters and without the spans
   * of all markup (reported or not yet).
   */
  readonly text: string
  /**
   * Markup finished (or, at `end()`, closed) by this call, in stream order. Markup inside reasoning
   * is reported once `answerFollows` is known, so possibly after the text that follows it was
   * released; its `start`/`end` place it.
   */
  readonly markup: readonly Markup[]
  /**
   * Stream offsets (UTF-16, in the whole stream) withheld by this call, as `[start, end)` pairs in
   * order: parts of calls and envelope tokens, decided now (a call is withheld as it arrives,
   * possibly before the call that holds it is reported).
   */
  readonly withheld: readonly number[]
  /**
   * Stream offset up to which the input is decided. The input in `[previous decided, decided)`
   * outside the `withheld` spans is exactly `text`, in order: a consumer maps text back to input
   * positions from these offsets, never by matching characters.
   */
  readonly decided: number
}

/**
 * Options of {@link createDetector} and {@link scan}.
 * @example
 * ```ts
 * const options: DetectorOptions = { tools: ["read_file", "bash"], maxHoldChars: 2048 }
 * ```
 */
export interface DetectorOptions {
  /** Names of the tools offered this turn. @defaultValue `[]` */
  readonly tools?: readonly string[]
  /** The formats to detect. @defaultValue every format but `cline-xml` */
  readonly formats?: readonly FormatId[]
  /** Cap, in UTF-16 units, on text held back while a candidate is undecided. @defaultValue 4096 */
  readonly maxHoldChars?: number
}

/**
 * An incremental detector over one stream of text deltas.
 * @example
 * ```ts
 * const detector: Detector = createDetector({ tools: ["bash"] })
 * for await (const delta of deltas) show(detector.push(delta).text)
 * show(detector.end().text)
 * ```
 */
export interface Detector {
  /** Feeds the next delta; returns the text now safe to show and the markup completed. */
  push(delta: string): DetectorResult
  /** Ends the stream: flushes held text and closes open markup with `complete: false`. */
  end(): DetectorResult
  /** Back to the state of a fresh detector with the same options. */
  reset(): void
  /**
   * UTF-16 units received but neither released as text nor withheld as markup yet: a possible
   * marker prefix, an undecided candidate (at most `maxHoldChars`) or half a surrogate pair.
   */
  held(): number
}

/**
 * One entry of {@link formats}: a catalogue format and a real example of it.
 * @example
 * ```ts
 * const hermes: FormatInfo | undefined = formats.find((f) => f.id === "hermes")
 * scan(hermes!.example, { tools: [hermes!.exampleTool] }).markup[0]?.toolName // "get_weather"
 * ```
 */
export interface FormatInfo {
  /** The id reported as {@link Markup.format}. */
  readonly id: FormatId
  /** Model families that write it. */
  readonly models: string
  /** Detected unless `formats` says otherwise. */
  readonly enabledByDefault: boolean
  /** A complete leaked call in this format (FORMATS.md), calling {@link FormatInfo.exampleTool}. */
  readonly example: string
  /** The tool the example calls. */
  readonly exampleTool: string
}

/**
 * The recovery policy (ARCHITECTURE.md#policy).
 * @example
 * ```ts
 * const strict: Policy = { evidence: "envelope", reasoning: "ignore" }
 * isRecoverable(markup, strict)
 * ```
 */
export interface Policy {
  /** `structure`: an envelope marker or inner call structure suffices; `envelope`: the strict rule, envelope required. @defaultValue "structure" */
  readonly evidence?: "structure" | "envelope"
  /** How markup inside reasoning counts. @defaultValue "auto" */
  readonly reasoning?: "auto" | "ignore" | "recover"
}
