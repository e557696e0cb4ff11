/**
 * The reader of the text {@link createProxyMetrics} writes: the samples of a Prometheus text
 * exposition (format 0.0.4, what `/metrics` serves), for whoever reads the proxy's `/metrics`
 * (the CLI's `report`, the live run's leak counts).
 *
 * Label values are read with prom-client's escapes undone (`\\`, `\"`, `\n`): a model name holds
 * anything a request sent, quotes, `outcome="…"` and newlines included, and a reader that matched
 * label text with a pattern over the whole line could take a model's text for a label. Values are
 * scanned one character at a time up to their closing quote, never by a backtracking pattern.
 *
 * Tolerant of the rest: `#` lines (HELP, TYPE, comments) and blank lines are skipped, and so is a
 * line that is not a sample (an unterminated value, an unknown escape, a duplicate label name, a
 * value that is not a number): a reader of counts goes on with what it can read.
 */

/**
 * One sample line: `name{label="value",…} value [timestamp]`.
 *
 * @example
 * ```ts
 * import type { MetricSample } from "@tool-rescue/proxy"
 *
 * const model = (sample: MetricSample) => sample.labels.get("model") ?? "unknown"
 * ```
 */
export interface MetricSample {
  /** The metric name, with a histogram's `_bucket`, `_sum`, `_count` suffix as written. */
  readonly name: string
  /** The labels, their values unescaped, in the order written. */
  readonly labels: ReadonlyMap<string, string>
  /** The value: a float, or `NaN`, `Infinity`, `-Infinity` for `NaN`, `+Inf`, `-Inf`. */
  readonly value: number
}

/**
 * Reads the samples of a Prometheus text exposition, in order. The optional timestamp is read
 * and left out (prom-client writes none).
 *
 * @example
 * ```ts
 * import { parseMetricSamples } from "@tool-rescue/proxy"
 *
 * const [sample] = parseMetricSamples('tool_rescue_proxy_requests_total{mode="recovered",model="a \\"b\\""} 3\n')
 * sample?.labels.get("model") // 'a "b"'
 * sample?.value // 3
 * ```
 */
export function parseMetricSamples(text: string): MetricSample[] {
  const samples: MetricSample[] = []
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    const sample = parseSampleLine(text, start, end)
    if (sample !== undefined) samples.push(sample)
    start = end + 1
  }
  return samples
}

const SPACE = 0x20
const TAB = 0x09
const CR = 0x0d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const HASH = 0x23

/** What a backslash in a label value stands for (text format 0.0.4: only these three). */
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ["\\", "\\"],
  ['"', '"'],
  ["n", "\n"],
])

/** The text format's spellings of the values that are not finite numbers. */
const SPECIAL_VALUES: ReadonlyMap<string, number> = new Map([
  ["NaN", Number.NaN],
  ["+Inf", Number.POSITIVE_INFINITY],
  ["-Inf", Number.NEGATIVE_INFINITY],
  ["Inf", Number.POSITIVE_INFINITY],
])

/** A decimal float as Go's `ParseFloat` reads it (no hex, no `Infinity`: `Number` takes both). */
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const INTEGER = /^-?\d+$/

/**
 * Where a name that starts at `at` ends (`at` itself: no name there). Metric names are
 * `[a-zA-Z_:][a-zA-Z0-9_:]*`; label names the same without `:`.
 */
function nameEnd(text: string, at: number, end: number, colon: boolean): number {
  let i = at
  for (; i < end; i++) {
    const code = text.charCodeAt(i)
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f
    const digit = code >= 0x30 && code <= 0x39
    if (!(letter || (digit && i > at) || (colon && code === 0x3a))) break
  }
  return i
}

/** Blanks between tokens; a CR before the LF of a line written with CRLF counts as one. */
function isBlank(code: number): boolean {
  return code === SPACE || code === TAB || code === CR
}

function skipBlanks(text: string, at: number, end: number): number {
  while (at < end && isBlank(text.charCodeAt(at))) at++
  return at
}

/** The token from `at` to the next blank (or the line's end). */
function tokenEnd(text: string, at: number, end: number): number {
  while (at < end && !isBlank(text.charCodeAt(at))) at++
  return at
}

/**
 * One line, `text[start, end)`: its sample, or `undefined` for a line that holds none.
 *
 * ```
 * name{label="value",…} 1 1700000000000
 * ^    ^                ^ ^
 * name labels           value timestamp (optional)
 * ```
 */
function parseSampleLine(text: string, start: number, end: number): MetricSample | undefined {
  let at = skipBlanks(text, start, end)
  if (at === end || text.charCodeAt(at) === HASH) return undefined
  const afterName = nameEnd(text, at, end, true)
  if (afterName === at) return undefined
  const name = text.slice(at, afterName)
  at = skipBlanks(text, afterName, end)
  let labels = new Map<string, string>()
  if (text[at] === "{") {
    const read = parseLabels(text, at + 1, end)
    if (read === undefined) return undefined
    labels = read.labels
    at = skipBlanks(text, read.at, end)
  }
  const valueEnd = tokenEnd(text, at, end)
  const value = parseValue(text.slice(at, valueEnd))
  if (value === undefined) return undefined
  at = skipBlanks(text, valueEnd, end)
  if (at < end) {
    const timestampEnd = tokenEnd(text, at, end)
    if (!INTEGER.test(text.slice(at, timestampEnd))) return undefined
    if (skipBlanks(text, timestampEnd, end) !== end) return undefined
  }
  return { name, labels, value }
}

/**
 * The labels after a `{`, up to its `}`: the labels and the offset past the `}`, or `undefined`
 * when the set is malformed. A trailing comma is allowed, as Prometheus allows it.
 *
 * ```
 * {model="a \"b\"",outcome="recovered"}
 *  ^     ^^        ^
 *  name  = "value" , or }
 * ```
 */
function parseLabels(
  text: string,
  at: number,
  end: number,
): { labels: Map<string, string>; at: number } | undefined {
  const labels = new Map<string, string>()
  for (;;) {
    at = skipBlanks(text, at, end)
    if (text[at] === "}") return { labels, at: at + 1 }
    const afterName = nameEnd(text, at, end, false)
    const name = text.slice(at, afterName)
    if (afterName === at || labels.has(name)) return undefined
    at = skipBlanks(text, afterName, end)
    if (text[at] !== "=") return undefined
    at = skipBlanks(text, at + 1, end)
    if (text.charCodeAt(at) !== QUOTE) return undefined
    const value = parseLabelValue(text, at + 1, end)
    if (value === undefined) return undefined
    labels.set(name, value.value)
    at = skipBlanks(text, value.at, end)
    if (text[at] === ",") at++
    else if (text[at] !== "}") return undefined
  }
}

/**
 * A label value after its opening quote: the value unescaped and the offset past its closing
 * quote, or `undefined` for an unknown escape or a value the line ends inside.
 */
function parseLabelValue(text: string, at: number, end: number): { value: string; at: number } | undefined {
  const parts: string[] = []
  let from = at
  for (let i = at; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      parts.push(text.slice(from, i))
      return { value: parts.join(""), at: i + 1 }
    }
    if (code !== BACKSLASH) continue
    const escaped = i + 1 < end ? ESCAPES.get(text.charAt(i + 1)) : undefined
    if (escaped === undefined) return undefined
    parts.push(text.slice(from, i), escaped)
    i++
    from = i + 1
  }
  return undefined
}

function parseValue(token: string): number | undefined {
  const special = SPECIAL_VALUES.get(token)
  if (special !== undefined) return special
  return FLOAT.test(token) ? Number(token) : undefined
}
