/**
 * `chunked(text)`: the ways a stream can deliver `text` — arbitrary partitions into deltas.
 */
import fc from "fast-check"

/**
 * Options of {@link chunked}.
 *
 * @example
 * ```ts
 * import { chunked } from "@tool-rescue/testing"
 *
 * const fewCuts = chunked("<tool_call>", { maxCuts: 3 })
 * ```
 */
export interface ChunkedOptions {
  /** At most this many random cut points in the free strategy. @defaultValue 64 */
  readonly maxCuts?: number
}

/** Characters where markers start or end, around which a split is most telling. */
const interesting = new Set([...'<>|｜[]`~{}"=:\n▁'])

/** Cut positions next to interesting characters and inside surrogate pairs. */
function interestingCuts(text: string): number[] {
  const cuts = new Set<number>()
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xdc00 && code <= 0xdfff && i > 0) cuts.add(i) // between the halves of a pair
    if (interesting.has(text[i]!)) {
      if (i > 0) cuts.add(i)
      if (i + 1 < text.length) cuts.add(i + 1)
    }
  }
  return [...cuts].sort((a, b) => a - b)
}

function split(text: string, cuts: readonly number[]): string[] {
  const sorted = [...new Set(cuts)].filter((cut) => cut > 0 && cut < text.length).sort((a, b) => a - b)
  const chunks: string[] = []
  let at = 0
  for (const cut of sorted) {
    chunks.push(text.slice(at, cut))
    at = cut
  }
  chunks.push(text.slice(at))
  return chunks
}

/**
 * Arbitrary partitions of `text` into non-empty chunks that concatenate back to it: free cut
 * points, cuts at marker boundaries and inside surrogate pairs, fixed-size chunks, and the
 * one-character-per-chunk split. Shrinks towards fewer cuts (the whole text in one chunk).
 * An empty text gives `[]`.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { createDetector } from "@tool-rescue/detector"
 * import { chunked } from "@tool-rescue/testing"
 *
 * const text = "<tool_call>\n<function=bash>\n</function>\n</tool_call>"
 * fc.assert(
 *   fc.property(chunked(text), (chunks) => {
 *     const detector = createDetector({ tools: ["bash"] })
 *     const markup = [...chunks.flatMap((c) => detector.push(c).markup), ...detector.end().markup]
 *     return markup.length === 1
 *   }),
 * )
 * ```
 */
export function chunked(text: string, options: ChunkedOptions = {}): fc.Arbitrary<string[]> {
  if (text.length === 0) return fc.constant([])
  if (text.length === 1) return fc.constant([text])
  const maxCuts = Math.min(text.length - 1, Math.max(1, options.maxCuts ?? 64))
  const free = fc
    .uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: maxCuts })
    .map((cuts) => split(text, cuts))
  const marks = interestingCuts(text)
  const strategies: Array<fc.WeightedArbitrary<string[]>> = [
    { weight: 4, arbitrary: free },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 8 }).map((size) =>
        split(
          text,
          Array.from({ length: Math.ceil(text.length / size) }, (_, i) => i * size),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constant(
        split(
          text,
          Array.from({ length: text.length }, (_, i) => i),
        ),
      ),
    },
  ]
  if (marks.length > 0) {
    strategies.push({ weight: 3, arbitrary: fc.subarray(marks).map((cuts) => split(text, cuts)) })
  }
  return fc.oneof(...strategies)
}
