/**
 * Skipping plain text: the hot path of the detector.
 *
 * A short stretch (a token-sized delta) is scanned one `charCodeAt` at a time against a 128-entry
 * trigger table. A long stretch (a big chunk, a long parameter value) is skipped with `indexOf`,
 * which V8 runs as a vectorised search: once per trigger character and once per literal that
 * starts with a letter (`to=functions.`, `functools`), remembering each next position so that every
 * search covers the text once. Both ways stop at the same places that matter.
 */

/** A trigger table and what `indexOf` needs to skip to the same places. */
export interface Scanner {
  /** 0: nothing; 1: a trigger; 2: a trigger only when followed by `second[code]` (a letter). */
  readonly trigger: Uint8Array
  readonly second: Uint16Array
  /** The characters whose `trigger` is 1. */
  readonly chars: readonly string[]
  /** The literals starting with a character whose `trigger` is 2. */
  readonly literals: readonly string[]
}

/** Builds a scanner from a trigger table and every literal that may start at a trigger. */
export function makeScanner(trigger: Uint8Array, second: Uint16Array, literals: Iterable<string>): Scanner {
  const chars: string[] = []
  for (let c = 0; c < 128; c++) if (trigger[c] === 1) chars.push(String.fromCharCode(c))
  const weak = [...new Set(literals)].filter((l) => trigger[l.charCodeAt(0)] === 2)
  return { trigger, second, chars, literals: weak }
}

/** Below this many characters the table loop beats the searches. */
const FAR = 256

/**
 * The index of the first character at or after `i` that may start something, or `text.length`.
 * A weak trigger counts when the next character fits, or when it is the last one (a prefix).
 */
export function skipPlain(text: string, i: number, scanner: Scanner): number {
  const len = text.length
  if (len - i >= FAR) return skipFar(text, i, scanner)
  const { trigger, second } = scanner
  for (; i < len; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128) continue
    const t = trigger[c]
    if (t === 0) continue
    if (t === 1 || i + 1 === len || text.charCodeAt(i + 1) === second[c]) return i
  }
  return len
}

// The positions found by the last searches, for the last text and scanner (module-level: a
// detector keeps nothing, and detectors working on other text just replace it).
let cachedText = ""
let cachedScanner: Scanner | undefined
let from: number[] = []
let next: number[] = []
let tail = 0

function skipFar(text: string, i: number, scanner: Scanner): number {
  const len = text.length
  const chars = scanner.chars
  const literals = scanner.literals
  const count = chars.length + literals.length
  if (cachedScanner !== scanner || cachedText !== text) {
    cachedScanner = scanner
    cachedText = text
    from = new Array<number>(count).fill(-1)
    next = new Array<number>(count).fill(-1)
    tail = partialTail(text, literals)
  }
  let best = tail >= i ? tail : len
  for (let k = 0; k < count; k++) {
    let at = next[k]!
    // A remembered position is valid for any start between where its search began and it.
    if (!(from[k]! <= i && i <= at)) {
      const found =
        k < chars.length ? text.indexOf(chars[k]!, i) : text.indexOf(literals[k - chars.length]!, i)
      at = found < 0 ? len : found
      from[k] = i
      next[k] = at
    }
    if (at < best) best = at
  }
  return best
}

/** Where a proper prefix of a weak literal ends the text (it may complete in the next delta), or -1. */
function partialTail(text: string, literals: readonly string[]): number {
  let start = -1
  for (const literal of literals) {
    for (let k = Math.min(literal.length - 1, text.length); k > 0; k--) {
      if (text.endsWith(literal.slice(0, k))) {
        const at = text.length - k
        if (start < 0 || at < start) start = at
        break
      }
    }
  }
  return start
}
