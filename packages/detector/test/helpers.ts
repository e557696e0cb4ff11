import { readFileSync } from "node:fs"
import { expect } from "vitest"
import { OPENER_ROWS, REASONING_ROWS, TOKEN_ROWS } from "../src/format-table.ts"
import type { DetectorOptions, DetectorResult, FormatId, Markup } from "../src/index.ts"
import { createDetector } from "../src/index.ts"

/**
 * Feeds `chunks` to a fresh detector and ends it; also records the hold after every push. Checks
 * every result's positions: the input in `[previous decided, decided)` outside its `withheld`
 * spans is exactly its `text`.
 */
export function feed(
  chunks: readonly string[],
  options: DetectorOptions = {},
): DetectorResult & { holds: number[] } {
  const detector = createDetector(options)
  const input = chunks.join("")
  let text = ""
  const markup: Markup[] = []
  const holds: number[] = []
  const withheld: number[] = []
  let decided = 0
  const take = (r: DetectorResult) => {
    // A plain comparison first: an `expect` per push would dominate one-character feeds.
    const shown = outsideSpans(input, decided, r.decided, r.withheld)
    if (r.text !== shown) expect(r.text).toBe(shown)
    decided = r.decided
    text += r.text
    markup.push(...r.markup)
    mergeSpans(withheld, r.withheld)
  }
  for (const chunk of chunks) {
    take(detector.push(chunk))
    holds.push(detector.held())
  }
  take(detector.end())
  expect(decided).toBe(input.length)
  return { text, markup, holds, withheld, decided }
}

/** `input[from, to)` without the `[start, end)` pairs of `spans`. */
function outsideSpans(input: string, from: number, to: number, spans: readonly number[]): string {
  let out = ""
  let at = from
  for (let k = 0; k < spans.length; k += 2) {
    if (spans[k]! < at) throw new Error(`withheld span ${spans[k]}-${spans[k + 1]} starts before ${at}`)
    out += input.slice(at, spans[k])
    at = spans[k + 1]!
  }
  if (at > to) throw new Error(`withheld span ends at ${at}, past decided ${to}`)
  return out + input.slice(at, to)
}

/** Appends the pairs of `more` to `into`, merging a pair that continues the last one. */
export function mergeSpans(into: number[], more: readonly number[]): number[] {
  for (let k = 0; k < more.length; k += 2) {
    if (into.length > 0 && into[into.length - 1] === more[k]) into[into.length - 1] = more[k + 1]!
    else into.push(more[k]!, more[k + 1]!)
  }
  return into
}

/** Splits `text` at the given cut points (sorted, deduplicated, in range). */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(text.length, c))))].sort((a, b) => a - b)
  const chunks: string[] = []
  let last = 0
  for (const p of points) {
    if (p > last) chunks.push(text.slice(last, p))
    last = p
  }
  if (last < text.length) chunks.push(text.slice(last))
  return chunks
}

/** Every character its own chunk (surrogate pairs split too). */
export function chars(text: string): string[] {
  return text.split("")
}

/**
 * Rebuilds the input from the visible text and the withheld spans: the spans must be in order,
 * disjoint, in range, and the text outside them must be exactly the visible text.
 */
export function reassemble(input: string, result: Pick<DetectorResult, "text" | "markup">): string {
  const spans = [...result.markup].sort((a, b) => a.start - b.start)
  let visible = ""
  let cursor = 0
  const pieces: string[] = []
  for (const m of spans) {
    if (m.start < cursor || m.end < m.start || m.end > input.length)
      throw new Error(`bad span ${m.start}-${m.end}`)
    visible += input.slice(cursor, m.start)
    pieces.push(input.slice(cursor, m.start), input.slice(m.start, m.end))
    cursor = m.end
  }
  visible += input.slice(cursor)
  pieces.push(input.slice(cursor))
  if (visible !== result.text)
    throw new Error(`visible text mismatch:\n${JSON.stringify(visible)}\n${JSON.stringify(result.text)}`)
  return pieces.join("")
}

/** The text of `input[0, to)` outside the withheld `spans`: what must have been shown by then. */
export function outside(input: string, spans: readonly Markup[], to: number): string {
  let shown = ""
  let at = 0
  for (const m of [...spans].sort((a, b) => a.start - b.start)) {
    if (m.start >= to) break
    shown += input.slice(at, m.start)
    at = Math.min(m.end, to)
  }
  return at < to ? shown + input.slice(at, to) : shown
}

/** A sample of the labelled corpus. */
export interface CorpusSample {
  readonly id: string
  readonly source: string
  readonly format: FormatId | "other"
  readonly tools: readonly string[]
  readonly text: string
  readonly expect: { readonly leak: boolean; readonly tools: readonly string[] }
  readonly scope: "core" | "stretch"
}

export const corpus: readonly CorpusSample[] = readFileSync(
  new URL("./fixtures/corpus.jsonl", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as CorpusSample)

/** A compact view of markup for assertions. */
export function brief(m: Markup): string {
  const flags = [
    m.opening ? "open" : "",
    m.closing ? "close" : "",
    m.structured ? "struct" : "",
    m.complete ? "" : "cut",
    m.inReasoning ? "think" : "",
    m.answerFollows ? "answered" : "",
  ].filter(Boolean)
  return `${m.format}:${m.toolName ?? "?"}${m.offered ? "" : "(not offered)"} ${flags.join(",")}`
}

/** Every marker of one format's rows: openers, body literals and closers, special tokens, its reasoning blocks. */
export function markersOf(format: FormatId): string[] {
  const markers = new Set<string>()
  for (const row of [...OPENER_ROWS, ...TOKEN_ROWS]) {
    if (row.format !== format) continue
    for (const literal of row.literals) markers.add(literal)
    if (row.body.kind === "tags") for (const e of row.body.entries) markers.add(e.literal)
    else for (const c of row.body.closers) markers.add(c)
  }
  for (const row of REASONING_ROWS) {
    if (row.formats === undefined || !row.formats.includes(format)) continue
    for (const literal of row.literals) markers.add(literal)
    for (const c of row.close) markers.add(c.literal)
  }
  return [...markers]
}

/**
 * A format's partial markers as the detector bench repeats them, `size` characters: every proper
 * prefix of each of its markers eight times (`<｜<｜…`, `<｜tool▁ca<｜tool▁ca…`), then the whole
 * marker eight times.
 */
export function partialMarkersOf(format: FormatId, size: number): string {
  const parts: string[] = []
  for (const marker of markersOf(format)) {
    for (let k = 1; k < marker.length; k++) parts.push(marker.slice(0, k).repeat(8))
    parts.push(marker.repeat(8))
  }
  const unit = parts.join("")
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}
