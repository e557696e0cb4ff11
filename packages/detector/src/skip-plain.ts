/**
 * Skipping plain text: the hot path of the detector.
 *
 * A position matters when its character can start a literal *and* the next character can be the
 * literal's second one (`<t` may start `<tool_call>`, `<d` of `<div>` cannot), or when it is the
 * last character received (it may be a prefix). Line feeds matter only before what a line start
 * can hold (indentation, a fence, a blank line); backticks always matter (inline code).
 *
 * A short stretch (a token-sized delta) is scanned one `charCodeAt` at a time against a 128-entry
 * table and a 128×128 pair table. A long stretch (a big chunk, a long parameter value) is skipped
 * with one search for every trigger character that is not a letter, each where it may matter (`>>`,
 * a line feed before what a line start can hold, `<t` before the third characters of the literals
 * through it, `<` before an XML prefix and its colon): a global regular expression that matches
 * one character, with a bounded look around it and constant work at each position, which irregexp
 * runs in one native pass. A literal that starts with a non-ASCII character (`‹｜DSML｜…`) stops
 * both scans at that character. A literal that starts with a letter (`function<`, `to=functions.`)
 * is checked backwards where the search finds its first character that is neither a letter nor a
 * space (its anchor); one whose anchor is not ASCII, or that has none, is searched for with
 * `indexOf`. Each next position is remembered, so that every search covers the text once. The
 * search stops where the table loop would, and never passes a position that matters
 * (`test/skip-plain.prop.test.ts`, `test/wide-first.prop.test.ts`).
 */
import {
  BACKTICK,
  COLON,
  CR,
  isAsciiLetter,
  isXmlPrefixPart,
  LF,
  LT,
  MAX_XML_PREFIX,
  SLASH,
  SPACE,
  TILDE,
  UNDERSCORE,
} from "./char-codes.ts"

/** What a scan stops at. */
export interface Scanner {
  /** 1 where a literal (or a line feed / backtick) can start. */
  readonly trigger: Uint8Array
  /**
   * `pairs[first << 7 | second]`: 0 when `second` (ASCII) cannot follow `first` at a stop; 1 when
   * it may, whatever comes next; `2 + slot` when only the thirds of `slot` may come next (every
   * literal through the pair is longer than two characters: `to` of prose is not `to=`).
   */
  readonly pairs: Uint8Array
  /** `thirds[slot << 7 | third]`: 1 when `third` (ASCII) may follow the slot's pair. */
  readonly thirds: Uint8Array
  /** Per slot: 1 when a non-ASCII third may follow its pair (`<|tool▁`). */
  readonly wideThirds: Uint8Array
  /** 1 when a non-ASCII second character may follow `first` (`<｜`). */
  readonly wide: Uint8Array
  /**
   * The non-ASCII characters a literal starts with (`‹` of `‹｜DSML｜…`): a scan stops at each.
   * Looked at only for a non-ASCII character between the least and the greatest of them (ASCII
   * prose pays nothing, and CJK text or fullwidth forms one comparison more).
   */
  readonly wideFirsts: readonly number[]
  /** The least of {@link wideFirsts} (none: above every code unit). */
  readonly wideMin: number
  /** The greatest of {@link wideFirsts}. */
  readonly wideMax: number
  /**
   * The non-letter trigger characters, found with one search: a global regular expression of their
   * class (irregexp scans a character class in one native pass; `indexOf` once per character had
   * each search stop at every `<`, `>` and backtick of tag-heavy text, one after the other).
   */
  readonly chars: RegExp
  /**
   * Literals starting with a letter (common in prose, slow to search for): each is searched from its
   * first character that is neither a letter nor a space on (`=functions.` of `to=functions.`,
   * which `indexOf` finds as fast as a single character), then checked backwards. Not those whose
   * anchor is one of `chars` (see `riders`).
   */
  readonly literals: readonly string[]
  /** Per literal: the offset of its first character that is neither a letter nor a space (0 when none). */
  readonly anchors: readonly number[]
  /**
   * Per character code below 128: the letter literals anchored on that character when it is one of
   * `chars` (`function<` on `<`, `functools[` on `[`), checked backwards where the search stops
   * instead of searched on their own: a search of their own for a character as common as `<`
   * stopped at every one of them again.
   */
  readonly riders: readonly (readonly Rider[])[]
  /** Some literal rides on a character. */
  readonly riding: boolean
  /** Every literal starting with a letter, searched or riding (a proper prefix of one may end the text). */
  readonly words: readonly string[]
  /**
   * Namespaced literals may follow any XML prefix: a `<` matters also where such a prefix and its
   * colon follow (see {@link nsPrefixAt}). `open`: opening tags (`<x:invoke`); `tags`: closing
   * tags too (`</x:invoke>`: in a namespaced call's body, and where some literal starts with `</`).
   */
  readonly ns: NsTags
  /**
   * The same scanner without stops at blank lines, for prose with no open inline-code run: a
   * paragraph end then changes nothing (prose scanners only; otherwise the scanner itself).
   */
  readonly quiet: Scanner
}

/** A letter literal that rides on a character search (see {@link Scanner.riders}): it starts `anchor` before the character. */
export interface Rider {
  readonly literal: string
  readonly anchor: number
}

/** Which namespaced tags a scanner stops before (see {@link Scanner.ns}). */
export type NsTags = "none" | "open" | "tags"

/**
 * Builds a scanner for `literals`. `lines`: line feeds and backticks matter too (prose), and
 * `lineStarts` are the first characters of line-anchored openers. `ns`: the namespaced tags among
 * the literals, which may follow any XML prefix.
 */
export function makeScanner(
  literals: Iterable<string>,
  lines: { readonly lineStarts: Iterable<number> } | undefined,
  ns: NsTags = "none",
): Scanner {
  const trigger = new Uint8Array(128)
  const pairs = new Uint8Array(128 * 128)
  const wide = new Uint8Array(128)
  const unique = [...new Set(literals)]
  // The third characters of each pair's longer literals, or `undefined` once a pair is open (a
  // literal ends at or before its second character: any third may follow).
  const thirdsOf = new Map<number, Set<number> | undefined>()
  // Characters that stop before anything (a one-character literal, a backtick, a line feed).
  const openFirst = new Uint8Array(128)
  const wideFirsts: number[] = []
  for (const literal of unique) {
    const first = literal.charCodeAt(0)
    if (first >= 128) {
      if (!wideFirsts.includes(first)) wideFirsts.push(first)
      continue
    }
    trigger[first] = 1
    if (literal.length === 1) {
      pairs.fill(1, first << 7, (first + 1) << 7)
      wide[first] = 1
      openFirst[first] = 1
    } else {
      const second = literal.charCodeAt(1)
      if (second < 128) {
        const pair = (first << 7) | second
        pairs[pair] = 1
        const known = thirdsOf.has(pair) ? thirdsOf.get(pair) : new Set<number>()
        if (literal.length === 2 || known === undefined) thirdsOf.set(pair, undefined)
        else thirdsOf.set(pair, known.add(literal.charCodeAt(2)))
      } else wide[first] = 1
    }
  }
  if (lines !== undefined) {
    trigger[BACKTICK] = 1
    openFirst[BACKTICK] = 1
    openFirst[LF] = 1
    pairs.fill(1, BACKTICK << 7, (BACKTICK + 1) << 7)
    wide[BACKTICK] = 1
    trigger[LF] = 1
    // Mirrors `stateText`: a line starting with a plain character is plain text.
    for (let c = 0; c <= 32; c++) pairs[(LF << 7) | c] = 1
    pairs[(LF << 7) | BACKTICK] = 1
    pairs[(LF << 7) | TILDE] = 1
    for (const c of lines.lineStarts) pairs[(LF << 7) | c] = 1
  }
  for (const pair of thirdsOf.keys()) if (openFirst[pair >> 7] === 1) thirdsOf.set(pair, undefined)
  if (ns !== "none") trigger[LT] = 1
  // Where a literal starts with `</`, a prefix may stand after it too (`matchNamespaced` reads one).
  const nsTags: NsTags = ns === "open" && unique.some((l) => l.startsWith("</")) ? "tags" : ns
  const { thirds, wideThirds } = slotThirds(pairs, thirdsOf)
  const letter = (c: number): boolean => c >= 97 && c <= 122
  const words = unique.filter((l) => letter(l.charCodeAt(0)))
  // A space would make a poor anchor: `indexOf(" call{")` stops at every word of prose.
  const plain = (c: number): boolean => letter(c) || c === SPACE
  const anchors = words.map((l) => {
    let k = 0
    while (k < l.length && plain(l.charCodeAt(k))) k++
    return k < l.length ? k : 0
  })
  // The characters searched for: the triggers that are not letters, and the literals' ASCII anchors.
  const searchedFor = new Uint8Array(128)
  for (let c = 0; c < 128; c++) if (trigger[c] === 1 && !letter(c)) searchedFor[c] = 1
  const none: readonly Rider[] = []
  const riders: (readonly Rider[])[] = new Array(128).fill(none)
  const searched: number[] = []
  words.forEach((literal, w) => {
    const k = anchors[w]!
    const on = k === 0 ? 128 : literal.charCodeAt(k)
    if (on >= 128) searched.push(w)
    else {
      riders[on] = [...riders[on]!, { literal, anchor: k }]
      searchedFor[on] = 1
    }
  })
  // Where each searched character matters, by the pair table (the quiet one differs).
  const searchWith = (table: Uint8Array): RegExp => {
    const looks = new Map<number, Look>()
    const lookOf = (c: number): Look => {
      let look = looks.get(c)
      if (look === undefined) {
        look = { any: false, ahead: new Map(), wide: false, prefix: false, behind: new Set() }
        looks.set(c, look)
      }
      return look
    }
    for (let c = 0; c < 128; c++) {
      if (trigger[c] !== 1 || searchedFor[c] !== 1) continue
      const look = lookOf(c)
      look.any = wide[c] === 1 && openFirst[c] === 1
      look.wide = wide[c] === 1
      look.prefix = c === LT && nsTags !== "none"
      for (let d = 0; d < 128; d++) {
        const pair = table[(c << 7) | d]!
        if (pair === 0) continue
        if (pair === 1) {
          look.ahead.set(d, undefined)
          continue
        }
        const slot = pair - 2
        const next: number[] = []
        for (let e = 0; e < 128; e++) if (thirds[(slot << 7) | e] === 1) next.push(e)
        if (wideThirds[slot] === 1) next.push(WIDE)
        look.ahead.set(d, next)
      }
    }
    for (const [c, list] of riders.entries())
      for (const { literal, anchor } of list) {
        const look = lookOf(c)
        if (anchor + 1 < literal.length) look.ahead.set(literal.charCodeAt(anchor + 1), undefined)
        else look.behind.add(literal.slice(0, anchor + 1))
      }
    return searchOf(looks, wideFirsts)
  }
  const search = searchWith(pairs)
  const scanner = {
    trigger,
    pairs,
    thirds,
    wideThirds,
    wide,
    wideFirsts,
    wideMin: wideFirsts.length === 0 ? 0x10000 : Math.min(...wideFirsts),
    wideMax: wideFirsts.length === 0 ? 0 : Math.max(...wideFirsts),
    chars: search,
    literals: searched.map((w) => words[w]!),
    anchors: searched.map((w) => anchors[w]!),
    riders,
    riding: searched.length < words.length,
    words,
    ns: nsTags,
    quiet: undefined as unknown as Scanner,
  }
  if (lines === undefined) scanner.quiet = scanner
  else {
    const quietPairs = new Uint8Array(pairs)
    quietPairs[(LF << 7) | LF] = 0
    quietPairs[(LF << 7) | CR] = 0
    // A quiet scanner is its own quiet twin.
    const quiet = { ...scanner, pairs: quietPairs, chars: searchWith(quietPairs) }
    quiet.quiet = quiet
    scanner.quiet = quiet
  }
  return scanner
}

/**
 * Whether an XML prefix and its colon follow the `<` at `i` (or `</`, with `closing`), or may (the
 * text ends inside the prefix): `<x:`, `</x:`, `<antml`. Where neither does, a namespaced literal
 * cannot start at `i` (`matchNamespaced` reads the same prefix): `<div `, `<b>`, `</p>` matter only
 * for the literals written with them.
 */
function nsPrefixAt(text: string, i: number, closing: boolean): boolean {
  const len = text.length
  let j = i + 1
  const c = text.charCodeAt(j)
  if (c === SLASH) {
    if (!closing) return false
    j++
  } else if (!(isAsciiLetter(c) || c === UNDERSCORE)) return false
  const from = j
  while (j < len && j - from <= MAX_XML_PREFIX && isXmlPrefixPart(text.charCodeAt(j))) j++
  if (j === len) return true
  return j > from && j - from <= MAX_XML_PREFIX && text.charCodeAt(j) === COLON
}

/** Where a searched character matters (see {@link searchOf}). */
interface Look {
  /** Anywhere. */
  any: boolean
  /**
   * Before one of these characters (keys; or at the end of the text, where it may be a prefix),
   * when one of their thirds follows them (values, {@link WIDE} for any non-ASCII one), or the end
   * of the text; `undefined`: whatever follows.
   */
  readonly ahead: Map<number, readonly number[] | undefined>
  /** Before a non-ASCII character. */
  wide: boolean
  /** Before an XML prefix and its colon (or the end of the text inside one). */
  prefix: boolean
  /** After one of these, which end with the character (a rider that ends with it: `function<`). */
  readonly behind: Set<string>
}

/** In a {@link Look}'s thirds: any non-ASCII character. */
const WIDE = -1

/**
 * One search for the characters, each where it may matter (`>>`, `]<`, a line feed before what a
 * line start can hold, `<t` before the third characters of the literals through it, `<` before
 * an XML prefix and its colon, `<` after `function`), or anywhere: a global regular expression
 * that matches one character (its position is `lastIndex - 1`), with a bounded look around it (at
 * most {@link MAX_XML_PREFIX} + 1 characters ahead, a rider's length behind), which irregexp runs
 * in one native pass. So the line feed between paragraphs, the `>` of HTML and the `<` of `<div>`,
 * `<b>`, `<template>` or `Array<number>` (a third of the stops in dense Markdown) are passed as
 * plain text is, not checked one by one in JS. The search stops wherever `stops` or a rider may (a
 * superset, which the property test checks); they decide.
 */
function searchOf(looks: ReadonlyMap<number, Look>, wideFirsts: readonly number[]): RegExp {
  const hex = (c: number): string => `\\x${c.toString(16).padStart(2, "0")}`
  const set = (cs: readonly number[]): string =>
    `[${cs
      .filter((c) => c !== WIDE)
      .map(hex)
      .join("")}${cs.includes(WIDE) ? "\\u0080-\\uffff" : ""}]`
  const alone: number[] = []
  const parts: string[] = []
  for (const [c, look] of looks) {
    if (look.any) {
      alone.push(c)
      continue
    }
    const open: number[] = []
    const ahead = ["$"]
    for (const [d, next] of look.ahead) {
      if (next === undefined) open.push(d)
      else ahead.push(`${hex(d)}(?:${set(next)}|$)`)
    }
    if (open.length > 0) ahead.unshift(set(open))
    if (look.wide) ahead.push(set([WIDE]))
    // `/`: a closing tag's prefix (`</x:`); what a prefix starts with is checked by `stops`.
    if (look.prefix) ahead.push(`\\/?[\\w-]{0,${MAX_XML_PREFIX + 1}}(?::|$)`)
    const behind = [...look.behind].map((b) => `(?<=${[...b].map((ch) => hex(ch.charCodeAt(0))).join("")})`)
    parts.push(`${hex(c)}(?:${[`(?=${ahead.join("|")})`, ...behind].join("|")})`)
  }
  // A literal's non-ASCII first character (`‹`): anywhere (irregexp still passes ASCII natively).
  const wides = wideFirsts.map((c) => `\\u${c.toString(16).padStart(4, "0")}`).join("")
  if (alone.length > 0 || wides.length > 0) parts.unshift(`[${alone.map(hex).join("")}${wides}]`)
  // Where there is nothing to search for, a class that matches nothing.
  return new RegExp(parts.length === 0 ? "[^\\s\\S]" : parts.join("|"), "g")
}

/** Below this many characters the table loop beats the searches. */
export const FAR = 256

/** Pairs given third characters of their own (the rest stay open): at most this many per scanner. */
const SLOTS = 254

/**
 * Gives each pair whose literals are all longer than two characters a slot with their third
 * characters (`pairs` then holds `2 + slot`); open pairs and pairs beyond {@link SLOTS} stay 1.
 */
function slotThirds(
  pairs: Uint8Array,
  thirdsOf: ReadonlyMap<number, ReadonlySet<number> | undefined>,
): { readonly thirds: Uint8Array; readonly wideThirds: Uint8Array } {
  const slotted = [...thirdsOf].filter(
    (entry): entry is [number, ReadonlySet<number>] => entry[1] !== undefined && pairs[entry[0]] === 1,
  )
  const count = Math.min(slotted.length, SLOTS)
  const thirds = new Uint8Array(count << 7)
  const wideThirds = new Uint8Array(count)
  for (let slot = 0; slot < count; slot++) {
    const [pair, set] = slotted[slot]!
    pairs[pair] = 2 + slot
    for (const c of set) {
      if (c < 128) thirds[(slot << 7) | c] = 1
      else wideThirds[slot] = 1
    }
  }
  return { thirds, wideThirds }
}

/** Does the trigger at `i` matter? (`i` is not the last character.) */
function stops(text: string, i: number, first: number, scanner: Scanner): boolean {
  if (literalStops(text, i, first, scanner)) return true
  // Where no literal written with it starts here, a namespaced tag may (after a prefix).
  return first === LT && scanner.ns !== "none" && nsPrefixAt(text, i, scanner.ns === "tags")
}

/** Does a literal of the scanner's (by its first three characters) start at `i`? */
function literalStops(text: string, i: number, first: number, scanner: Scanner): boolean {
  const second = text.charCodeAt(i + 1)
  if (second >= 128) return scanner.wide[first] === 1
  const pair = scanner.pairs[(first << 7) | second]!
  // A pair that ends the text may be a prefix; otherwise its third character decides.
  if (pair < 2 || i + 2 >= text.length) return pair !== 0
  const third = text.charCodeAt(i + 2)
  return third < 128 ? scanner.thirds[((pair - 2) << 7) | third] === 1 : scanner.wideThirds[pair - 2] === 1
}

/** The index of the first position at or after `i` that matters, or `text.length`. */
export function skipPlain(text: string, i: number, scanner: Scanner, memo: SearchMemo): number {
  const len = text.length
  // The table loop first: a scan that resumes at a held candidate stops right there, and must not
  // pay for searches over the rest of the text (held text would be searched again on every push).
  // Not once this text has searches: they find the next stop in a few comparisons a stop.
  const near = memo.searchedText === text ? i : Math.min(len, i + FAR)
  i = skipNear(text, i, near, scanner)
  return i < near || i === len ? i : skipFar(text, i, scanner, memo)
}

/** The table loop: the first position in `[i, end)` that matters, or `end`. */
export function skipNear(text: string, i: number, end: number, scanner: Scanner): number {
  const len = text.length
  const trigger = scanner.trigger
  for (; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c < 128) {
      if (trigger[c] === 1 && (i + 1 === len || stops(text, i, c, scanner))) return i
    } else if (c >= scanner.wideMin && c <= scanner.wideMax && scanner.wideFirsts.includes(c)) return i
  }
  return end
}

/**
 * The searches of one scanner over one text: where each began, and what it found (the character
 * search, then one per searched literal). A found position is valid for any start between where
 * its search began and it.
 */
interface Searches {
  charFrom: number
  charNext: number
  readonly from: number[]
  readonly next: number[]
  /** Where proper prefixes of letter literals end the text, in order. */
  readonly tails: readonly number[]
}

/**
 * The searches made over one text (a long delta, or the buffer of one push), per set of needles,
 * so that switching between prose, reasoning and call bodies never repeats a search. Owned by one
 * detector; {@link forgetSearches} drops them when its push is settled (the text is not kept).
 */
export interface SearchMemo {
  searchedText: string
  /** Made on the first far search (most detectors never make one: an idle detector stays small). */
  byChars: Map<RegExp, Searches> | undefined
}

/** Drops the searches and the text they were made over. */
export function forgetSearches(memo: SearchMemo): void {
  if (memo.searchedText.length === 0) return
  memo.searchedText = ""
  memo.byChars?.clear()
}

function skipFar(text: string, start: number, scanner: Scanner, memo: SearchMemo): number {
  const len = text.length
  const chars = scanner.chars
  if (memo.byChars === undefined) memo.byChars = new Map()
  if (memo.searchedText !== text) {
    memo.searchedText = text
    memo.byChars.clear()
  }
  // One set of searches per search (a scanner and its quiet twin each have their own).
  let searches = memo.byChars.get(chars)
  if (searches === undefined) {
    const count = scanner.literals.length
    searches = {
      charFrom: -1,
      charNext: -1,
      from: new Array<number>(count).fill(-1),
      next: new Array<number>(count).fill(-1),
      tails: partialTails(text, scanner.words),
    }
    memo.byChars.set(chars, searches)
  }
  // The first literal (or partial one at the end) from `start`: the scan below passes character
  // hits only before it, so it holds for the whole scan.
  const literal = firstLiteral(text, start, scanner, searches)
  for (let i = start; ; ) {
    let at = searches.charNext
    if (!(searches.charFrom <= i && i <= at)) {
      at = findChar(text, i, chars)
      if (at < 0) at = len
      searches.charFrom = i
      searches.charNext = at
    }
    if (at >= literal) return literal < len ? riderAround(text, literal, start, scanner) : len
    const c = text.charCodeAt(at)
    // A literal's non-ASCII first character (the only non-ASCII character the search finds).
    if (c >= 128) return at
    // A letter literal riding on this character starts before it (and after `start`: the search
    // has passed every position between them, none of which stopped).
    const riders = scanner.riders[c]!
    const rider = riders.length === 0 ? -1 : riderAt(text, at, start, riders)
    if (rider >= 0) return rider
    // A trigger matters only with a fitting follower (an anchor that is no trigger never). The
    // characters searched for are no letters: only a space may stand inside a rider.
    if (scanner.trigger[c] === 1 && (at + 1 >= len || stops(text, at, c, scanner)))
      return c === SPACE ? riderAround(text, at, start, scanner) : at
    i = at + 1
  }
}

/** The first searched literal at or after `i`, or where a partial one ends the text, or `text.length`. */
function firstLiteral(text: string, i: number, scanner: Scanner, searches: Searches): number {
  const { from, next, tails } = searches
  let best = text.length
  for (const tail of tails)
    if (tail >= i) {
      best = tail
      break
    }
  for (let k = 0; k < from.length; k++) {
    let at = next[k]!
    if (!(from[k]! <= i && i <= at)) {
      const found = findLiteral(text, i, k, scanner)
      at = found < 0 ? text.length : found
      from[k] = i
      next[k] = at
    }
    if (at < best) best = at
  }
  return best
}

/** The first of the characters at or after `i`, or -1. */
function findChar(text: string, i: number, chars: RegExp): number {
  // Shared by every detector: `lastIndex` is set before each search and read right after it.
  chars.lastIndex = i
  return chars.test(text) ? chars.lastIndex - 1 : -1
}

/** The earliest start at or after `from` of a rider anchored at `at`, or -1. */
function riderAt(text: string, at: number, from: number, riders: readonly Rider[]): number {
  let found = -1
  for (const { literal, anchor } of riders) {
    const q = at - anchor
    if (q >= from && (found < 0 || q < found) && text.startsWith(literal, q)) found = q
  }
  return found
}

/**
 * `stop`, or the start of a rider that begins before it (at or after `from`) and is anchored after
 * it: only a stop at a letter or a space can stand inside a rider (its start, a letter literal found
 * by its own search or a partial one, or a space that starts a literal).
 */
function riderAround(text: string, stop: number, from: number, scanner: Scanner): number {
  const c = text.charCodeAt(stop)
  if (!(c === SPACE || (c >= 97 && c <= 122)) || !scanner.riding) return stop
  let found = stop
  for (const riders of scanner.riders)
    for (const { literal, anchor } of riders)
      for (let q = Math.max(from, stop - anchor + 1); q < found; q++)
        if (text.startsWith(literal, q)) found = q
  return found
}

/** The first occurrence of literal `w` of the scanner at or after `i`, searched from its anchor; -1 if none. */
function findLiteral(text: string, i: number, w: number, scanner: Scanner): number {
  const literal = scanner.literals[w]!
  const k = scanner.anchors[w]!
  if (k === 0) return text.indexOf(literal, i)
  const suffix = literal.slice(k)
  const prefix = literal.slice(0, k)
  for (let q = text.indexOf(suffix, i + k); q >= 0; q = text.indexOf(suffix, q + 1)) {
    if (text.startsWith(prefix, q - k)) return q - k
  }
  return -1
}

/**
 * Where proper prefixes of letter-initial literals end the text (each may complete later), in
 * order: every one, not the first only (a scan that starts after `to=fu` of `to=functions.` must
 * still stop at its `fu`, a prefix of `function<`).
 */
function partialTails(text: string, literals: readonly string[]): number[] {
  const starts = new Set<number>()
  for (const literal of literals)
    for (let k = Math.min(literal.length - 1, text.length); k > 0; k--)
      if (text.endsWith(literal.slice(0, k))) starts.add(text.length - k)
  return [...starts].sort((a, b) => a - b)
}
