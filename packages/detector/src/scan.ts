import { createDetector } from "./create-detector.ts"
import type { DetectorOptions, DetectorResult } from "./types.ts"

/**
 * Scans a whole response at once. Identical to `push(text)` then `end()` on a fresh detector:
 * `text` is the response with markup withheld, `markup` every call found, `withheld` the spans
 * withheld (pairs of offsets), `decided` the response's length.
 *
 * @param text - the complete response text.
 * @param options - tools offered this turn, formats, hold cap.
 * @throws TypeError on invalid options (never on model output).
 * @example
 * ```ts
 * import { isRecoverable, scan } from "@tool-rescue/detector"
 *
 * // ollama/ollama#16686: Qwen3-Coder dropped `<tool_call>` and wrote the call as text.
 * const response =
 *   "I'll use the Glob tool to list all markdown files in the current directory.\n\n" +
 *   "<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>"
 * const { text, markup } = scan(response, { tools: ["Glob", "Read", "Bash"] })
 * // text === "I'll use the Glob tool to list all markdown files in the current directory.\n\n"
 * // markup[0]: { format: "qwen3-coder", toolName: "Glob", offered: true, opening: false, closing: true, … }
 * // isRecoverable(markup[0]) === true
 * ```
 */
export function scan(text: string, options: DetectorOptions = {}): DetectorResult {
  if (typeof text !== "string") throw new TypeError("tool-rescue: scan(text) expects a string")
  const detector = createDetector(options)
  const first = detector.push(text)
  const last = detector.end()
  return {
    text: first.text + last.text,
    markup:
      first.markup.length === 0
        ? last.markup
        : last.markup.length === 0
          ? first.markup
          : [...first.markup, ...last.markup],
    withheld: joinSpans(first.withheld, last.withheld),
    decided: last.decided,
  }
}

/** `a` then `b`, a span of `b` that continues the last of `a` merged into it. */
function joinSpans(a: readonly number[], b: readonly number[]): readonly number[] {
  if (b.length === 0) return a
  if (a.length === 0) return b
  if (a[a.length - 1] !== b[0]) return [...a, ...b]
  return [...a.slice(0, -1), ...b.slice(1)]
}
