/**
 * A tiny grammar interpreter for the bounded bits of syntax that decide whether a marker is a
 * tool call: `<function=NAME>`, `to=functions.NAME`, "whitespace then `{`", and so on.
 *
 * Every pattern is matched against a window of the input that ends either at the end of what has
 * arrived so far (then an incomplete match answers {@link MORE}: the caller holds the text and
 * asks again when more arrives) or at a final edge (end of stream or the hold cap: an incomplete
 * match then fails). Patterns never look past the window, so the answer for a position depends only
 * on the characters, never on how they were chunked — the root of split invariance.
 *
 * There is no backtracking beyond `alt` trying its (few, short) alternatives in order, and every
 * pattern consumes a bounded number of characters, so a match costs O(window).
 */

import {
  APOSTROPHE,
  BACKSLASH,
  CR,
  DEL,
  DOT,
  EQUALS,
  GT,
  HYPHEN,
  isAsciiDigit,
  isAsciiLetter,
  LBRACE,
  LBRACKET,
  LF,
  LPAREN,
  LT,
  QUOTE,
  RBRACE,
  RBRACKET,
  RPAREN,
  SPACE,
  TAB,
  UNDERSCORE,
} from "./char-codes.ts"
import { notePy, noteRun, type RunHolder, resumePy, resumeRun, resumeWithin } from "./run-memo.ts"

/** Match answer: the pattern failed at this position. */
export const FAIL = -1
/** Match answer: the window ended before the pattern could decide; ask again with more input. */
export const MORE = -2

/** A character class for names. */
export type NameClass =
  /** `[A-Za-z0-9_.-]`: bare names followed by more syntax (`call:NAME{`, `<tool_call>NAME\n`). */
  | "ident"
  /** Anything but `{}<>"'=`, whitespace and controls: `<function=NAME>` (rejects `{{ tc.name }}`). */
  | "function"
  /** Anything but `"`, `<`, `>` and line breaks: quoted attribute values (`name="NAME"`). */
  | "quoted"
  /** Anything but `<`, `>`, whitespace: element text such as `<tool_name>NAME</tool_name>`. */
  | "element"
  /** ASCII digits. */
  | "digits"
  /** ASCII letters. */
  | "letters"
  /** Space and tab: what may stand between a call's close and the end of its line. */
  | "blank"
  /**
   * `ident` and spaces: a name with words in it (`<tool_call>get weather<arg_key>`, vLLM
   * `poolside_v1`). Spaces after the last word are not captured.
   */
  | "spaced"
  /** Any non-ASCII code unit: glitch tokens a decoder writes between header parts (`天天中彩票能`). */
  | "nonascii"

/** A bounded grammar over UTF-16 code units. */
export type Pattern =
  /** An exact literal. */
  | { readonly kind: "lit"; readonly text: string }
  /** Zero or more whitespace characters (space, tab, CR, LF). */
  | { readonly kind: "ws" }
  /** One to `max` characters of a class; `capture` stores them as the tool name. */
  | { readonly kind: "name"; readonly chars: NameClass; readonly max: number; readonly capture: boolean }
  /** Each item in order. */
  | { readonly kind: "seq"; readonly items: readonly Pattern[] }
  /** The first item that matches (an item answering MORE stops the search: order is priority). */
  | {
      readonly kind: "alt"
      readonly items: readonly Pattern[]
      /** Per item, the character it must start with (-1: any): an item that cannot start here is not tried. */
      readonly heads: readonly number[]
    }
  /** The item or nothing. */
  | { readonly kind: "opt"; readonly item: Pattern }
  /** The item must match here, but consumes nothing. */
  | { readonly kind: "peek"; readonly item: Pattern }
  /** The item must not match here; consumes nothing. */
  | { readonly kind: "not"; readonly item: Pattern }
  /** The end of the stream: nothing follows, and nothing will (`end()` is running). */
  | { readonly kind: "end" }
  /** The stream ends here or inside one of `texts` (a header cut off before its payload): consumes the rest. */
  | { readonly kind: "cut"; readonly texts: readonly string[] }
  /** The item, or the stream ending inside it (a call cut off in the middle of its header): consumes the rest. */
  | { readonly kind: "cut-in"; readonly item: Pattern }
  /** Anything up to and including the first `text` in the window (the rest of a call, to its close). */
  | { readonly kind: "to"; readonly text: string }
  /**
   * A Python call's arguments after its `(`, to and including the `)` that closes it, on one line:
   * strings (either quote, backslash escapes) and nested brackets are read over.
   */
  | { readonly kind: "py-args" }

/** Where a match stores the captured name, and the runs it read (resumed when it is tried again). */
export interface Capture extends RunHolder {
  captured: string | undefined
  /**
   * The `ws` or `name` pattern whose run an answer of MORE stopped in at the window's end, and the
   * run's start (stream offset); a MORE for another reason sets `undefined`. The first MORE is the
   * answer (every pattern passes it straight up), so after one this says why.
   */
  cutRun: Pattern | undefined
  cutFrom: number
}

/**
 * A pattern object with every field of every kind, in one order: all patterns share one hidden
 * class, so that `match` reads them monomorphically (a dozen shapes made every read of
 * `pattern.kind` a megamorphic lookup once the formats' confirms had all run).
 */
function node(fields: Pattern): Pattern {
  const shaped = {
    kind: fields.kind,
    text: "",
    chars: "ident" as NameClass,
    max: 0,
    capture: false,
    items: NO_ITEMS,
    item: undefined as Pattern | undefined,
    texts: NO_TEXTS,
    heads: NO_HEADS,
  }
  return Object.assign(shaped, fields)
}
const NO_ITEMS: readonly Pattern[] = []
const NO_HEADS: readonly number[] = []

/** The character a match of `p` must start with, or -1 (a literal, or a peek or sequence that starts with one). */
function headOf(p: Pattern): number {
  switch (p.kind) {
    case "lit":
      return p.text.length > 0 ? p.text.charCodeAt(0) : -1
    case "peek":
      return headOf(p.item)
    case "seq":
      return p.items.length > 0 ? headOf(p.items[0]!) : -1
    default:
      return -1
  }
}
const NO_TEXTS: readonly string[] = []

/** Pattern constructors, so that format rows read like grammar. */
export const lit = (text: string): Pattern => node({ kind: "lit", text })
export const ws: Pattern = node({ kind: "ws" })
export const name = (chars: NameClass, max = 256): Pattern =>
  node({ kind: "name", chars, max, capture: true })
export const word = (chars: NameClass, max = 64): Pattern =>
  node({ kind: "name", chars, max, capture: false })
export const seq = (...items: Pattern[]): Pattern => node({ kind: "seq", items })
export const alt = (...items: Pattern[]): Pattern => node({ kind: "alt", items, heads: items.map(headOf) })
export const opt = (item: Pattern): Pattern => node({ kind: "opt", item })
export const peek = (item: Pattern): Pattern => node({ kind: "peek", item })
export const not = (item: Pattern): Pattern => node({ kind: "not", item })
/** Matches at the end of the stream only (a call cut off right after its name). */
export const end: Pattern = node({ kind: "end" })
/**
 * A tag literal (`<invoke`, `</function_calls>`) that may carry an XML namespace prefix after its
 * `<` or `</` (`<x:invoke`, `</function_calls>`).
 */
export const nsLit = (text: string): Pattern => {
  // A tag with a prefix of its own (`</minimax:tool_call>`) is matched as written (no backtracking).
  if (text.includes(":")) return lit(text)
  const open = text.startsWith("</") ? "</" : "<"
  return seq(lit(open), opt(seq(word("ident", 32), lit(":"))), lit(text.slice(open.length)))
}
/** Matches when the stream ends here or after a proper prefix of one of `texts` (`<|constr`). */
export const cut = (...texts: string[]): Pattern => node({ kind: "cut", texts })
/** Matches `item`, or the end of the stream inside it (`{"name": "get_weather", "par` then nothing). */
export const cutIn = (item: Pattern): Pattern => node({ kind: "cut-in", item })
/**
 * Skips to the end of the first `text` in the window (`</function>`): a look as far as the hold cap,
 * so only for a decision that must see a call's end. Resumed where the last look stopped.
 */
export const to = (text: string): Pattern => node({ kind: "to", text })
/** The rest of a Python call after its `(`, closed on its line (see {@link matchPyArgs}). */
export const pyArgs: Pattern = node({ kind: "py-args" })

/** Whitespace as far as markup grammars care: space, tab, LF, CR, FF, VT. */
export function isSpace(code: number): boolean {
  return code === SPACE || (code >= TAB && code <= CR)
}

function isAsciiIdent(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === UNDERSCORE || c === HYPHEN || c === DOT
}

/** Does `code` belong to the class? */
export function inClass(chars: NameClass, c: number): boolean {
  switch (chars) {
    case "ident":
      return isAsciiIdent(c)
    case "function":
      // vLLM `_is_valid_function_name`: no `{}<>"'` and no whitespace; also no `=`.
      return !(
        c <= SPACE ||
        c === LBRACE ||
        c === RBRACE ||
        c === LT ||
        c === GT ||
        c === QUOTE ||
        c === APOSTROPHE ||
        c === EQUALS ||
        c === DEL
      )
    case "quoted":
      return !(c === QUOTE || c === LT || c === GT || c === LF || c === CR)
    case "element":
      return !(c <= SPACE || c === LT || c === GT)
    case "digits":
      return isAsciiDigit(c)
    case "letters":
      return isAsciiLetter(c)
    case "blank":
      return c === SPACE || c === TAB
    case "spaced":
      return c === SPACE || isAsciiIdent(c)
    case "nonascii":
      return c >= 128
    default:
      return chars satisfies never
  }
}

/** MORE, for a reason other than a run cut off. */
function more(capture: Capture): number {
  capture.cutRun = undefined
  return MORE
}

/** MORE: the run of `pattern` from `i` reached the window's end. */
function cutRun(capture: Capture, pattern: Pattern, i: number): number {
  capture.cutRun = pattern
  capture.cutFrom = capture.base + i
  return MORE
}

/**
 * Matches `pattern` at `i` in `text`, looking no further than `limit`.
 * @param final - true when nothing will arrive beyond `limit` (end of stream or hold cap).
 * @param streamEnd - true when `limit` is the end of the stream (not the hold cap): only then does
 *   {@link end} match, so that a capped window decides as a later, longer window would.
 * @returns the end index of the match, {@link FAIL} or {@link MORE}.
 */
export function match(
  pattern: Pattern,
  text: string,
  i: number,
  limit: number,
  final: boolean,
  capture: Capture,
  streamEnd = false,
): number {
  switch (pattern.kind) {
    case "lit": {
      const s = pattern.text
      for (let k = 0; k < s.length; k++) {
        if (i + k >= limit) return final ? FAIL : more(capture)
        if (text.charCodeAt(i + k) !== s.charCodeAt(k)) return FAIL
      }
      return i + s.length
    }
    case "ws": {
      let j = resumeRun(capture, pattern, i, limit)
      while (j < limit && isSpace(text.charCodeAt(j))) j++
      noteRun(capture, pattern, i, j)
      return j === limit && !final ? cutRun(capture, pattern, i) : j
    }
    case "name": {
      let j = resumeRun(capture, pattern, i, limit)
      while (j < limit && j - i <= pattern.max && inClass(pattern.chars, text.charCodeAt(j))) j++
      noteRun(capture, pattern, i, j)
      if (j - i > pattern.max) return FAIL
      if (j === limit && !final) return cutRun(capture, pattern, i)
      if (j === i) return FAIL
      if (pattern.capture) {
        let to = j
        if (pattern.chars === "spaced") while (to > i && text.charCodeAt(to - 1) === SPACE) to--
        capture.captured = text.slice(i, to)
      }
      return j
    }
    case "seq": {
      let j = i
      for (const item of pattern.items) {
        j = match(item, text, j, limit, final, capture, streamEnd)
        if (j < 0) return j
      }
      return j
    }
    case "alt": {
      const saved = capture.captured
      const items = pattern.items
      const c = i < limit ? text.charCodeAt(i) : -1
      for (let k = 0; k < items.length; k++) {
        // One that needs another first character would fail right there: not tried.
        const head = pattern.heads[k]!
        if (c >= 0 && head >= 0 && head !== c) continue
        const j = match(items[k]!, text, i, limit, final, capture, streamEnd)
        if (j !== FAIL) return j
        capture.captured = saved
      }
      return FAIL
    }
    case "opt": {
      const saved = capture.captured
      const j = match(pattern.item, text, i, limit, final, capture, streamEnd)
      if (j === FAIL) {
        capture.captured = saved
        return i
      }
      return j
    }
    case "peek": {
      const j = match(pattern.item, text, i, limit, final, capture, streamEnd)
      return j < 0 ? j : i
    }
    case "not": {
      const saved = capture.captured
      const j = match(pattern.item, text, i, limit, final, capture, streamEnd)
      capture.captured = saved
      if (j === MORE) return MORE
      return j === FAIL ? i : FAIL
    }
    case "end":
      if (i < limit) return FAIL
      return streamEnd ? i : final ? FAIL : more(capture)
    case "cut": {
      // Only what reaches the window's end can be cut off; the longest text bounds the look.
      for (const t of pattern.texts) {
        let k = 0
        while (k < t.length && i + k < limit && text.charCodeAt(i + k) === t.charCodeAt(k)) k++
        if (i + k === limit && k < t.length) return streamEnd ? limit : final ? FAIL : more(capture)
      }
      return FAIL
    }
    case "cut-in": {
      if (!streamEnd) return match(pattern.item, text, i, limit, final, capture, streamEnd)
      // At the end of the stream, an item that would ask for more was cut off inside: it matches.
      const j = match(pattern.item, text, i, limit, false, capture, streamEnd)
      return j === MORE ? limit : j
    }
    case "to": {
      const s = pattern.text
      const from = resumeWithin(capture, pattern, i, text.length)
      // Known already: no occurrence ends within the window.
      if (from + s.length > limit) return final ? FAIL : more(capture)
      const at = text.indexOf(s, from)
      // What the search learnt: no occurrence starts before `at` (or before the last `s.length - 1`
      // characters read). A later look, from here or from a later candidate, resumes there.
      noteRun(capture, pattern, i, at >= 0 ? at : Math.max(from, text.length - s.length + 1))
      if (at >= 0 && at + s.length <= limit) return at + s.length
      return final ? FAIL : more(capture)
    }
    case "py-args":
      return matchPyArgs(text, i, limit, final, capture)
    default:
      return pattern satisfies never
  }
}

/**
 * A Python call's arguments from `i` (right after its `(`) to the `)` that closes it: the index
 * after that `)`. Quotes (`"`, `'`, a backslash escaping the next character) and nested `()[]{}`
 * are read over; a line break before the close fails (a bare call is one line, as vLLM's
 * `granite_pythonic` reads it line by line), and so does a bracket closing the wrong depth. Read
 * part way, the lexer state is remembered (`notePy`), and so is where a call closed, so a line of
 * calls streaming in is read once.
 */
function matchPyArgs(text: string, i: number, limit: number, final: boolean, capture: Capture): number {
  const read = resumePy(capture, i, limit)
  if (read !== undefined && read.depth === 0) return read.to - capture.base
  let j = read === undefined ? i : read.to - capture.base
  let depth = read?.depth ?? 1
  let quote = read?.quote ?? 0
  let escaped = read?.escaped ?? false
  for (; j < limit; j++) {
    const c = text.charCodeAt(j)
    if (c === LF || c === CR) return FAIL
    if (quote !== 0) {
      if (escaped) escaped = false
      else if (c === BACKSLASH) escaped = true
      else if (c === quote) quote = 0
    } else if (c === QUOTE || c === APOSTROPHE) quote = c
    else if (c === LPAREN || c === LBRACKET || c === LBRACE) depth++
    else if (c === RPAREN || c === RBRACKET || c === RBRACE) {
      if (--depth > 0) continue
      if (c !== RPAREN) return FAIL
      // Closed: noted too, so the calls after it on its line (`a(…), b(`) do not read it again.
      notePy(capture, i, j + 1, 0, 0, false)
      return j + 1
    }
  }
  notePy(capture, i, j, depth, quote, escaped)
  return final ? FAIL : more(capture)
}
