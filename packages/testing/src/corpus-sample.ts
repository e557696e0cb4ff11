import type { FormatId } from "@tool-rescue/detector"

/**
 * One labelled real-world leak: text a model really emitted, quoted from a public bug report,
 * with the tools offered in that turn and the result expected under the default policy.
 *
 * @example
 * ```ts
 * import { type CorpusSample, corpus } from "@tool-rescue/testing"
 *
 * const qwen: CorpusSample[] = corpus.filter((sample) => sample.format === "qwen3-coder")
 * ```
 */
export interface CorpusSample {
  /** Sample id, e.g. `"L1"`. */
  readonly id: string
  /** The public report the text comes from, e.g. `"ollama/ollama#16686"`. */
  readonly source: string
  /** The catalogue format (`FORMATS.md`), or `"other"` for a shape outside the catalogue. */
  readonly format: FormatId | "other"
  /** The tool names offered to the model in that turn. */
  readonly tools: readonly string[]
  /** The response text, exactly as emitted. */
  readonly text: string
  readonly expect: {
    /** `isRecoverable` is true for some markup under the default policy. */
    readonly leak: boolean
    /** The offered tools the recoverable markup names, in order (a repeated call repeats the name). */
    readonly tools: readonly string[]
  }
  /**
   * `core`: must pass; `stretch`: a format outside the default set (`other`, `cline-xml`) or a
   * shape the default policy deliberately leaves as text.
   */
  readonly scope: "core" | "stretch"
}
