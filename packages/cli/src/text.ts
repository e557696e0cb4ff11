/**
 * Small text helpers for output: model text is made safe for a terminal before it is printed.
 */

/**
 * A one-line, terminal-safe excerpt of model text: newlines become `⏎`, tabs a space, other
 * control characters (ESC included, so model text can never drive the terminal) `\xNN`, lone
 * surrogates `\uXXXX`; cut to `max` characters with `…`.
 *
 * @example
 * ```ts
 * import { excerpt } from "@tool-rescue/cli"
 *
 * excerpt("<function=read_file>\n<parameter=path>", 24) // "<function=read_file>⏎<p…"
 * ```
 */
export function excerpt(text: string, max = 72): string {
  const out: string[] = []
  let width = 0
  let index = 0
  while (index < text.length) {
    if (width >= max) {
      out.push("…")
      return out.join("")
    }
    const code = text.charCodeAt(index)
    let piece: string
    let size = 1
    if (code === 0x0a) piece = "⏎"
    else if (code === 0x0d) piece = text.charCodeAt(index + 1) === 0x0a ? "" : "⏎"
    else if (code === 0x09) piece = " "
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) piece = `\\x${code.toString(16).padStart(2, "0")}`
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        piece = text.slice(index, index + 2)
        size = 2
      } else piece = `\\u${code.toString(16)}`
    } else if (code >= 0xdc00 && code <= 0xdfff) piece = `\\u${code.toString(16)}`
    else piece = text[index]!
    out.push(piece)
    width += piece.length === 0 ? 0 : 1
    index += size
  }
  return out.join("")
}

/**
 * Makes a one-line error message safe and short: control characters escaped, at most `max`
 * characters.
 *
 * @example
 * ```ts
 * import { oneLine } from "@tool-rescue/cli"
 *
 * oneLine("Unexpected token\n in JSON") // "Unexpected token⏎ in JSON"
 * ```
 */
export function oneLine(text: string, max = 200): string {
  return excerpt(text.trim(), max)
}

/**
 * A count and its noun, singular for exactly one: `plural(1, "line")` is `"1 line"`, and the
 * count is grouped like {@link formatCount}. `word` is the singular; `many` overrides the
 * plural where an `s` is wrong.
 *
 * @example
 * ```ts
 * plural(1, "adapter") // "1 adapter"
 * plural(1500, "line") // "1,500 lines"
 * ```
 */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : many}`
}

/**
 * `1234567` → `1,234,567`.
 *
 * @example
 * ```ts
 * import { formatCount } from "@tool-rescue/cli"
 *
 * formatCount(1234567) // "1,234,567"
 * ```
 */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US")
}

/**
 * A byte count as `B`, `kB`, `MB` or `GB` (powers of 1000).
 *
 * @example
 * ```ts
 * import { formatBytes } from "@tool-rescue/cli"
 *
 * formatBytes(2_500_000) // "2.5 MB"
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  const units = ["kB", "MB", "GB", "TB"]
  let value = bytes / 1000
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/**
 * A duration in milliseconds as `850 ms` or `1.24 s`.
 *
 * @example
 * ```ts
 * import { formatMs } from "@tool-rescue/cli"
 *
 * formatMs(1240) // "1.24 s"
 * ```
 */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–"
  const sign = ms < 0 ? "-" : ""
  const abs = Math.abs(ms)
  return abs < 1000 ? `${sign}${Math.round(abs)} ms` : `${sign}${(abs / 1000).toFixed(2)} s`
}

/**
 * A ratio as a percentage with one decimal, or `–` when there is nothing to divide.
 *
 * @example
 * ```ts
 * import { formatPercent } from "@tool-rescue/cli"
 *
 * formatPercent(1, 3) // "33.3%"
 * ```
 */
export function formatPercent(part: number, whole: number): string {
  if (whole === 0) return "–"
  return `${((part / whole) * 100).toFixed(1)}%`
}
