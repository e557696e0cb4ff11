import { visibleWidth } from "./style.ts"

/**
 * Greedy word wrap for terminal output: breaks `text` at spaces so that no line is wider than
 * `width` columns, counting the `indent` that every line after the first starts with (the first
 * line is taken to start at the same column: its label is as wide as the indent). Colour codes
 * take no columns; a word wider than the line stays whole rather than being cut.
 *
 * @example
 * ```ts
 * wrapText("the retry carries the instruction", 20, "  ") // "the retry carries\n  the instruction"
 * ```
 */
export function wrapText(text: string, width: number, indent: string): string {
  const room = Math.max(20, width - visibleWidth(indent))
  const lines: string[] = []
  let words: string[] = []
  let used = 0
  for (const word of text.split(" ")) {
    const size = visibleWidth(word)
    if (words.length > 0 && used + 1 + size > room) {
      lines.push(words.join(" "))
      words = []
      used = 0
    }
    used += (words.length > 0 ? 1 : 0) + size
    words.push(word)
  }
  lines.push(words.join(" "))
  return lines.join(`\n${indent}`)
}
