import type { OutputPart } from "./types.ts"

/** The end of the shown text an instruction may quote: enough to continue from, bounded. */
const KEPT_CHARS = 500

/**
 * What the consumer of a streamed turn has on screen: the end of the visible text released so
 * far, and whether a retry's first text owes it a line break. A retry's text otherwise runs on
 * from the abandoned attempt's ("I will run it.Calling the tool properly.").
 *
 * @example
 * ```ts
 * import { ShownText } from "./shown-text.ts"
 *
 * const shown = new ShownText()
 * shown.show({ type: "text", text: "I will run it." })
 * shown.retry() // "I will run it."
 * shown.show({ type: "text", text: "Calling the tool." }) // { type: "text", text: "\nCalling the tool." }
 * ```
 */
export class ShownText {
  private tail = ""
  /** A retry started after shown text that does not end a line: its first text starts one. */
  private breakOwed = false

  /** `part` as the consumer gets it, noted as shown (a text part may gain the owed line break). */
  show<Raw>(part: OutputPart<Raw>): OutputPart<Raw> {
    if (part.type !== "text" || part.text.length === 0) return part
    let next = part
    if (this.breakOwed) {
      this.breakOwed = false
      next = { ...part, text: `\n${part.text}` }
    }
    // Kept bounded: cut back to the kept length once it is twice that (not on every delta).
    this.tail += next.text
    if (this.tail.length > 2 * KEPT_CHARS) this.tail = this.tail.slice(-KEPT_CHARS)
    return next
  }

  /**
   * A retry starts: its first text will start a new line if the shown text does not end one.
   * Returns the shown text for the instruction (its last {@link KEPT_CHARS} characters), or
   * undefined when nothing but whitespace was shown.
   */
  retry(): string | undefined {
    const { tail } = this
    if (tail.length > 0 && !tail.endsWith("\n")) this.breakOwed = true
    if (tail.trim().length === 0) return undefined
    return tail.length > KEPT_CHARS ? tail.slice(-KEPT_CHARS) : tail
  }
}
