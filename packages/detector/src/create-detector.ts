/**
 * `createDetector`: the factory, the dispatch loop, the prose state, and what a push returns.
 * The state itself is described in `machine.ts`.
 */

import { BACKTICK, CR, LF, SPACE, TILDE } from "./char-codes.ts"
import { tablesFor } from "./compile.ts"
import {
  closeReasoning,
  endMarkup,
  flushQueue,
  openMarkup,
  openReasoning,
  release,
  withhold,
} from "./emit.ts"
import { createMachine, dropRuns, isBlank, type Machine, NO_MARKUP, NO_SPANS } from "./machine.ts"
import {
  addRun,
  stateCodeCheck,
  stateCodeQuote,
  stateFence,
  stateFenceClose,
  stateFenceCloseTail,
  stateFenceInfo,
  stateFenceLineStart,
  stateFenceOpen,
  stateHtmlBlock,
  stateHtmlLineStart,
  stateIndentedCode,
  stateInlineRun,
  stateLineStart,
} from "./markdown-states.ts"
import { stateJson } from "./markup-json.ts"
import { statePythonic } from "./markup-pythonic.ts"
import { stateTags } from "./markup-tags.ts"
import { stateMarkupTail } from "./markup-tail.ts"
import {
  type CloseHit,
  heldTag,
  heldWalk,
  type Matched,
  matchClose,
  matchStart,
  mayStartNamespaced,
  runGoesOn,
  type StartHit,
} from "./match.ts"
import { FAIL, MORE } from "./pattern.ts"
import { resolveOptions } from "./resolve-options.ts"
import { FAR, forgetSearches, type Scanner, skipNear, skipPlain } from "./skip-plain.ts"
import type { Detector, DetectorOptions, DetectorResult } from "./types.ts"

/**
 * Creates an incremental detector for one stream of text deltas (one model response).
 *
 * Feed each delta to `push`; show the returned `text`; collect the returned `markup`. Call `end()`
 * when the stream ends. Markup is withheld from `text`; a possible marker prefix at the end of a
 * delta is held back until the next delta decides it.
 *
 * @param options - tools offered this turn, formats, hold cap.
 * @returns a {@link Detector}.
 * @throws TypeError on invalid options (never on model output).
 * @example
 * ```ts
 * import { createDetector, isRecoverable } from "@tool-rescue/detector"
 *
 * const detector = createDetector({ tools: ["Glob", "Read"] })
 * let shown = ""
 * const found = []
 * for (const delta of ["I'll list the files.\n\n<func", "tion=Glob>\n<parameter=pattern>\n*.md\n", "</parameter>\n</function>\n</tool_call>"]) {
 *   const { text, markup } = detector.push(delta)
 *   shown += text
 *   found.push(...markup)
 * }
 * const last = detector.end()
 * shown += last.text
 * found.push(...last.markup)
 * // shown === "I'll list the files.\n\n"
 * // found[0].toolName === "Glob", found[0].opening === false, found[0].closing === true
 * // isRecoverable(found[0]) === true
 * ```
 */
export function createDetector(options: DetectorOptions = {}): Detector {
  const { tools, enabled, maxHoldChars } = resolveOptions(options)
  const tables = tablesFor(options.formats, enabled, tools)
  const detector: Handle = {
    [MACHINE]: createMachine(tools, tables, Math.max(maxHoldChars, tables.longest)),
    push,
    end,
    reset,
    held,
  }
  return detector
}

/** Where a detector keeps its machine (a symbol: the detector shows only its methods). */
const MACHINE: unique symbol = Symbol("tool-rescue machine")

/**
 * A detector: its machine and the four methods every detector shares (no closures of its own: an
 * idle detector is this object and its machine).
 */
interface Handle extends Detector {
  [MACHINE]: Machine
}

/** The machine of the detector a method was called on. */
function machineOf(detector: Handle | undefined, method: string): Machine {
  const m = detector?.[MACHINE]
  if (m === undefined)
    throw new TypeError(
      `tool-rescue: ${method}() is a method: call it on its detector (detector.${method}(…))`,
    )
  return m
}

function push(this: Handle | undefined, delta: string): DetectorResult {
  return pushDelta(machineOf(this, "push"), delta)
}

function end(this: Handle | undefined): DetectorResult {
  return endStream(machineOf(this, "end"))
}

function reset(this: Handle | undefined): void {
  const m = machineOf(this, "reset")
  const detector = this as Handle
  // From the machine's own options (shared by every detector made with the same ones).
  detector[MACHINE] = createMachine(m.tools, m.tables, m.maxHold)
}

function held(this: Handle | undefined): number {
  return heldCount(machineOf(this, "held"))
}

function run(m: Machine): void {
  for (;;) {
    let more: boolean
    switch (m.state) {
      case "line-start":
        more = stateLineStart(m)
        break
      case "text":
        more = stateText(m)
        break
      case "fence-open":
        more = stateFenceOpen(m)
        break
      case "inline-run":
        more = stateInlineRun(m)
        break
      case "fence-info":
        more = stateFenceInfo(m)
        break
      case "fence":
        more = stateFence(m)
        break
      case "fence-line-start":
        more = stateFenceLineStart(m)
        break
      case "code-quote":
        more = stateCodeQuote(m)
        break
      case "fence-close":
        more = stateFenceClose(m)
        break
      case "fence-close-tail":
        more = stateFenceCloseTail(m)
        break
      case "indented-code":
        more = stateIndentedCode(m)
        break
      case "html-block":
        more = stateHtmlBlock(m)
        break
      case "html-line-start":
        more = stateHtmlLineStart(m)
        break
      case "code-check":
        more = stateCodeCheck(m)
        break
      // Inside a call: the open draft, narrowed once for the handler (these states always have one).
      case "markup-tags":
        more = m.draft !== undefined && stateTags(m, m.draft)
        break
      case "markup-json":
        more = m.draft !== undefined && stateJson(m, m.draft)
        break
      case "markup-pythonic":
        more = m.draft !== undefined && statePythonic(m, m.draft)
        break
      case "markup-tail":
        more = m.draft !== undefined && stateMarkupTail(m, m.draft)
        break
      default:
        m.state satisfies never
        return
    }
    if (!more) return
  }
}

function stateText(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  if (m.anchor) {
    // Start-anchored formats: the first visible character of the response (or after reasoning).
    // Line feeds still go through `line-start` (a fence may open there).
    while (i < len && isBlank(m.buf.charCodeAt(i))) i++
    m.pos = i
    if (i === len) return false
    if (m.buf.charCodeAt(i) === LF) {
      m.pos = i + 1
      m.lineIndent = 0
      m.para = false
      m.state = "line-start"
      return true
    }
    const hit = matchStart(m, m.tables.anchor, i)
    if (hit === MORE) return false
    m.anchor = false
    if (hit !== FAIL) return act(m, i, hit)
  }
  // From here on `anchor` is false: only a reasoning closer (through `act`, which returns) sets it again.
  for (;;) {
    // Re-chosen each time: a backtick run opened or a blank line dropped the runs.
    i = skipPlain(m.buf, i, textScanner(m), m)
    m.pos = i
    if (i >= len) return false
    const c = m.buf.charCodeAt(i)
    if (c === LF) {
      // Most lines start with plain text: stay here unless the next character matters at a line start.
      const next = i + 1 < len ? m.buf.charCodeAt(i + 1) : LF
      if (
        next > SPACE &&
        next !== BACKTICK &&
        next !== TILDE &&
        !(next < 128 && m.tables.lineStart[next] !== 0)
      ) {
        i++
        continue
      }
      if (next === LF && i + 2 < len) {
        // A blank line: the paragraph ends (as in `line-start`); the second line feed is looked at next.
        dropRuns(m)
        // A line at the margin after it, which this loop may skip, ends the open list item (§5.2),
        // as `line-start` would note: a fence opened later must not read its lines against it.
        if (m.buf.charCodeAt(i + 2) > SPACE) m.listIndent = 0
        i++
        continue
      }
      m.pos = i + 1
      m.lineIndent = 0
      // The line that ends here is blank when a line feed (or CR LF) ends the one before it: the
      // quiet scanner skips blank lines without stopping.
      m.para = !endsBlankLine(m, i)
      m.state = "line-start"
      return true
    }
    if (c === BACKTICK) {
      // An inline code run, counted here when it ends in the input (most do); one that reaches the
      // input's end is counted on as it arrives (`inline-run`), never read again.
      const j = proseRun(m, i)
      if (j < 0) return true
      i = j
      continue
    }
    const hit = markerAt(m, i)
    if (hit === MORE) return false
    if (hit === FAIL) {
      i++
      continue
    }
    // Markup or a reasoning marker. Inside a possible inline code span it is an example, unless
    // the span never closes (then its opening run was literal text).
    if (m.runs.length > 0) {
      if (m.base + i < m.codeUntil) {
        i++
        continue
      }
      m.checkStart = m.checkPos = m.base + i
      m.checkReturn = "text"
      m.state = "code-check"
      return true
    }
    return act(m, i, hit)
  }
}

/**
 * The backtick run at `i` in prose, as `inline-run` counts it (`countRun`): where it ends, its
 * length added to the open runs; or -1, the input ended inside it, and `inline-run` counts on.
 */
function proseRun(m: Machine, i: number): number {
  const len = m.buf.length
  let j = i
  while (j < len && j - i < m.maxHold && m.buf.charCodeAt(j) === BACKTICK) j++
  if (j === len && j - i < m.maxHold && !m.final) {
    m.runChar = BACKTICK
    m.runLen = j - i
    m.pos = j
    m.state = "inline-run"
    return -1
  }
  addRun(m, j - i)
  return j
}

/** Is the line that ends with the line feed at `i` empty (CommonMark: a blank line)? */
function endsBlankLine(m: Machine, i: number): boolean {
  let j = i - 1
  if (codeAt(m, j) === CR) j--
  return codeAt(m, j) === LF
}

/** The character at `j` of `buf`, or one of the two before it (`j` = -1, -2). */
function codeAt(m: Machine, j: number): number {
  return j >= 0 ? m.buf.charCodeAt(j) : j === -1 ? m.prevCode : m.prevCode2
}

/** What prose is skipped with: the reasoning block's scanner or the response's. */
function textScanner(m: Machine): Scanner {
  const scanner = m.reasoning === undefined ? m.textScan : m.reasoning.textScan
  // Blank lines only matter while an inline code run or a list item is open (a line at the margin
  // after one ends the item, §5.2: `stateText` notes it).
  return m.runs.length === 0 && m.listIndent === 0 ? scanner.quiet : scanner
}

/**
 * What starts at `i` in text: a reasoning closer, then openers. An answer of MORE notes whether a
 * confirm stopped in a run at the input's end (see `runGoesOn`).
 */
function markerAt(m: Machine, i: number): Matched<StartHit | CloseHit> {
  // A walk or a literal cut off answers MORE without a pattern saying why.
  m.cutRun = undefined
  const hit = startOrClose(m, i)
  m.cutEnd = hit === MORE && m.cutRun !== undefined ? m.base + m.buf.length : -1
  return hit
}

function startOrClose(m: Machine, i: number): Matched<StartHit | CloseHit> {
  if (m.reasoning !== undefined) {
    const hit = matchClose(m, m.reasoning.close, i)
    if (hit !== FAIL) return hit
  }
  return matchStart(m, m.tables.text, i)
}

/** Acts on what `markerAt` or an anchored lookup just found at `i`. */
function act(m: Machine, i: number, hit: StartHit | CloseHit): boolean {
  if (hit.kind === "close") return closeReasoning(m, hit.close.peek ? i : hit.end)
  const start = hit.start
  // A closer the chat template's opener (in the prompt) left alone: the answer starts after it.
  if (start.kind === "reasoning-end") return closeReasoning(m, hit.end)
  if (start.kind === "reasoning") return openReasoning(m, i, start.row, hit.end)
  return openMarkup(m, i, start.row, hit.end, hit.name)
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff
}

/** Releases what the states decided, drops the decided prefix, and returns the result. */
function settle(m: Machine): DetectorResult {
  // The searches were made over this push's buffer, which is about to change: the detector keeps none.
  forgetSearches(m)
  // Inside a call, what was decided is withheld.
  if (m.draft === undefined) release(m, m.pos)
  else withhold(m, m.pos)
  if (m.pos > 0) {
    m.prevCode2 = m.pos > 1 ? m.buf.charCodeAt(m.pos - 2) : m.prevCode
    m.prevCode = m.buf.charCodeAt(m.pos - 1)
    m.base += m.pos
    m.buf = m.buf.slice(m.pos)
    m.pos = m.textFrom = 0
  }
  let text = m.out
  m.out = ""
  if (m.highHeld.length > 0) {
    text = m.highHeld + text
    m.highHeld = ""
  }
  let decided = m.base + m.pos
  if (!m.final && text.length > 0 && m.outEnd === m.base + m.buf.length) {
    // Never release half a surrogate pair: hold a high surrogate that ends the input received so
    // far until its pair arrives. One followed by anything already received (held text, markup)
    // is lone: holding it would make `held()` count a character that is not at the end.
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      m.highHeld = text.slice(-1)
      text = text.slice(0, -1)
      decided--
    }
  }
  return result(m, text, decided)
}

/** `text` with the markup reported and the spans withheld since the last result. */
function result(m: Machine, text: string, decided: number): DetectorResult {
  m.quick = quickScanner(m)
  m.callQuick = callScanner(m)
  return resultOf(m, text, decided)
}

/**
 * The scanner of the next push's in-call fast path (see `slowPush`), or `undefined`: inside a
 * call's tags body with nothing held and no block waiting for its answer, not ended.
 */
function callScanner(m: Machine): Scanner | undefined {
  const d = m.draft
  if (m.state !== "markup-tags" || d === undefined || d.block !== undefined) return undefined
  if (m.buf.length > 0 || m.ended) return undefined
  return d.body.scan
}

/**
 * The scanner of the next push's fast path (see `pushDelta`), or `undefined` when the next push
 * cannot take it: prose with nothing held or waiting (no held marker or high surrogate, no
 * start-anchored format, no closed reasoning block waiting for its answer), not ended.
 */
function quickScanner(m: Machine): Scanner | undefined {
  if (m.state !== "text" || m.buf.length > 0 || m.anchor || m.ended) return undefined
  if (m.unanswered !== undefined || m.highHeld.length > 0) return undefined
  return textScanner(m)
}

/** {@link result} for a push that left everything `quickScanner` reads as it was. */
function resultOf(m: Machine, text: string, decided: number): DetectorResult {
  let withheld = NO_SPANS
  if (m.withheld !== undefined) {
    withheld = m.withheld
    m.withheld = undefined
  }
  const markup = m.found
  if (markup === undefined) return { text, markup: NO_MARKUP, withheld, decided }
  m.found = undefined
  return { text, markup, withheld, decided }
}

/**
 * Prose that needs no state handler (a delta with no position that matters and nothing held is
 * released by `pushDelta` itself): the held text and the delta together have no position that
 * matters, so all of it is released; or the only one is the last character, the
 * first character of some opener (`t` of `to=functions.`, `<`), which is held as `stateText`
 * would hold it (its match needs the next character); or the delta only extends a held marker
 * prefix; or the push ends in a marker prefix that only needs more. A held
 * prefix that the delta disproves is not scanned or matched again. `undefined`: the machine must
 * run on `buf` from `pos`, which the delta was appended to. `stop`: where `pushDelta`'s table loop
 * stopped in the delta, when nothing was held (-1: it did not scan).
 */
function plainPush(m: Machine, delta: string, stop: number): DetectorResult | undefined {
  if (m.buf.length === 1 && delta.length < FAR) {
    // One character held (`t` of `that`, `<`), which most deltas disprove at once: the two are
    // scanned as one (a single character leaves no walk or run worth resuming).
    const text = m.buf + delta
    const len = text.length
    const at = skipNear(text, 0, len, textScanner(m))
    if (
      (at === len && !isHighSurrogate(text.charCodeAt(len - 1))) ||
      (at === len - 1 && holdsLast(m, text))
    ) {
      m.buf = text
      return releaseTo(m, text, at)
    }
  }
  const held = m.buf.length > 0 ? heldMarker(m, delta) : "undecided"
  if (held === "goes-on") {
    // Still held, as `markerAt` would answer. (Appended lazily: nothing reads the buffer now.)
    m.buf += delta
    return result(m, "", m.base)
  }
  // `settle` left only the undecided tail in `buf`: appending never copies decided text.
  const text = m.buf.length === 0 ? delta : m.buf + delta
  m.buf = text
  // Where the scan starts: after the held marker when the delta disproved it (`markerAt` would
  // answer FAIL there; no confirm ran, so no run was cut off): a tag's prefix that ends without
  // its colon, or a literal walk that stops where no namespaced tag can start.
  let from = 0
  if (held === "fails" || (held === "stops" && !mayStartNamespaced(m.tables.text, text))) {
    m.cutRun = undefined
    m.cutEnd = -1
    from = 1
  }
  // Nothing was held: where the table loop stopped in the delta (`pushDelta`), or the scan.
  return plainFrom(m, text, stop >= 0 ? stop : skipPlain(text, from, textScanner(m), m))
}

/**
 * Prose in `buf` (`text`) from `at`, where the scan stopped, as `stateText` reads it: released
 * without the machine up to a position where the machine must run (`undefined`, `pos` there).
 * Backtick runs are counted as `stateText` counts them ({@link proseRun}); a run that reaches the
 * input's end is released with the text before it, and `inline-run` counts on (`stepPush`).
 */
function plainFrom(m: Machine, text: string, at: number): DetectorResult | undefined {
  const len = text.length
  let to = len
  while (at !== len) {
    const c = text.charCodeAt(at)
    // The machine starts where the scan stopped (`stateText` would skip the same plain text).
    m.pos = at
    if (m.reasoning !== undefined || !(c < 128) || c === LF) return
    if (c === BACKTICK) {
      // `stateText` counts the run, and goes on after it with the scanner the open runs choose; at
      // the input's end the machine would stop in `inline-run` at once, and `settle` release all
      // of it (the run is decided text: it ends in a backtick, no high surrogate).
      const j = proseRun(m, at)
      if (j < 0) return releaseTo(m, text, len)
      at = skipPlain(text, j, textScanner(m), m)
      continue
    }
    if (at === len - 1) {
      if (!holdsLast(m, text)) return
      to = at
      break
    }
    // The candidate, matched as `stateText` matches it: a marker prefix cut off by the end of the
    // input is held without the machine (`<｜tool▁ca` then `<｜t` ends the push: the machine would
    // only match it and stop); a hit is matched again by the machine, which acts on it; where
    // nothing starts (`[i]`, `<b>`), the scan goes on after it, as `stateText` goes on.
    const hit = markerAt(m, at)
    // Held from `at`, as `settle` would hold it after `stateText` stopped there.
    if (hit === MORE) return releaseTo(m, text, at)
    if (hit !== FAIL) return
    at = skipPlain(text, at + 1, textScanner(m), m)
  }
  if (to === len && isHighSurrogate(text.charCodeAt(len - 1))) return
  return releaseTo(m, text, to)
}

/**
 * Whether the last character of `text` (`buf`), where nothing before it matters, is held without
 * the machine: the first character of some opener's longer literal (`t` of `to=functions.`, `<`),
 * whose match needs the next character, outside reasoning.
 */
function holdsLast(m: Machine, text: string): boolean {
  const c = text.charCodeAt(text.length - 1)
  if (m.reasoning !== undefined || !(c < 128) || c === LF || c === BACKTICK) return false
  return (m.tables.text.firsts[c]?.kids.length ?? 0) > 0
}

/** Releases `buf` (`text`) up to `to` without the machine: `buf` keeps only the held tail. */
function releaseTo(m: Machine, text: string, to: number): DetectorResult {
  m.pos = 0
  forgetSearches(m)
  const released = to === text.length ? text : text.slice(0, to)
  m.buf = to === text.length ? "" : text.slice(to)
  if (to > 0) passed(m, text, to, text.charCodeAt(to - 1))
  return result(m, released, m.base)
}

/**
 * What the delta does to the marker held at `buf[0]` (a held marker is where the scan stops: the
 * machine would start there): a tag's XML prefix goes on or fails ({@link heldTag}), its literal
 * walk goes on or stops ({@link heldWalk}), its confirm's cut-off run goes on (`goes-on`), or the
 * machine must decide.
 */
function heldMarker(m: Machine, delta: string): "goes-on" | "stops" | "fails" | "undecided" {
  if (m.reasoning !== undefined) return "undecided"
  // A walk over the text index starts only where `stateText` asks `markerAt`: never at a line feed
  // or a backtick. So it is tried before `buf[0]` is read (a held buffer joined with earlier deltas
  // is copied flat by its first read), as is a tag's prefix (where a walk failed).
  const walk = heldWalk(m, m.tables.text, delta)
  if (walk !== "undecided") return walk
  const tag = m.tag
  if (
    tag !== undefined &&
    tag.at === m.base &&
    tag.to === m.base + m.buf.length &&
    tag.index === m.tables.text
  ) {
    const read = heldTag(m, tag, delta)
    if (read !== "undecided") {
      // As `markerAt` leaves them: no confirm ran, so no run was cut off.
      m.cutRun = undefined
      m.cutEnd = -1
      return read
    }
  }
  const c = m.buf.charCodeAt(0)
  if (c === LF || c === BACKTICK) return "undecided"
  return runGoesOn(m, delta) ? "goes-on" : "undecided"
}

/**
 * A push that starts, with nothing held, in a state prose most often comes back to at once:
 * `inline-run` (a backtick run the last push's end cut off) or `line-start` (the last push ended a
 * line). The state's handler reads the delta as `run` would call it; where it leaves the machine
 * in prose, the prose fast path ({@link plainFrom}) goes on as `stateText` would. The machine
 * runs only where either leaves it.
 */
function stepPush(m: Machine, delta: string, step: (m: Machine) => boolean): DetectorResult {
  m.buf = delta
  m.pos = 0
  // The handler needs more (a run or an indentation that reaches the delta's end, a line start's
  // marker cut off): `run` would stop there too.
  if (!step(m)) return settle(m)
  if (m.state === "text") {
    const plain = plainFrom(m, delta, skipPlain(delta, m.pos, textScanner(m), m))
    if (plain !== undefined) return plain
  }
  run(m)
  return settle(m)
}

/**
 * Inside a line of fenced or indented code, a delta with no line feed is code text to the end (the
 * line's end decides what comes next; outside reasoning nothing else in the line matters): it is
 * released as `stateFence` would release it, without running the machine. False when the machine
 * must run (held text, reasoning, an answer to note, a line feed, a trailing high surrogate).
 */
function codeLinePush(m: Machine, delta: string): boolean {
  const len = delta.length
  if (m.buf.length > 0 || m.reasoning !== undefined || m.unanswered !== undefined || m.highHeld.length > 0)
    return false
  const last = delta.charCodeAt(len - 1)
  if (isHighSurrogate(last) || delta.indexOf("\n") >= 0) return false
  passed(m, delta, len, last)
  return true
}

/**
 * The first `to` characters of `text` (`last`: the one before `to`), which begins at `buf[0]`, were
 * decided without the machine: the stream moves past them. (No `outEnd`: only `settle` reads it,
 * for text released by `release` in the same call.)
 */
function passed(m: Machine, text: string, to: number, last: number): void {
  // `prevCode2` is read only behind a CR (`endsBlankLine`): written only then.
  if (last === CR) m.prevCode2 = to > 1 ? text.charCodeAt(to - 2) : m.prevCode
  m.prevCode = last
  m.base += to
}

/**
 * A push: the fast path, and {@link stoppedPush} or {@link slowPush} for the rest. Kept small on
 * purpose: V8 inlines a function this size (with the table loop) into the caller's loop over the
 * deltas, so most pushes make no call at all; with the other paths written here it was too big to
 * inline (each push then paid a call, about a tenth of a prose push at 4-character deltas).
 */
function pushDelta(m: Machine, delta: string): DetectorResult {
  const quick = m.quick
  if (quick !== undefined && typeof delta === "string") {
    // Nothing held (most token-sized deltas): where the table loop stops in the delta, if it is short.
    const n = delta.length
    if (n > 0 && n < FAR) {
      const stop = skipNear(delta, 0, n, quick)
      const last = delta.charCodeAt(n - 1)
      if (stop === n && !isHighSurrogate(last)) {
        // No position that matters: released as it came (the one check most pushes make).
        passed(m, delta, n, last)
        return resultOf(m, delta, m.base)
      }
      return stoppedPush(m, delta, stop)
    }
  }
  return slowPush(m, delta)
}

/** The whole of `delta` (`n` long) is withheld: nothing held, no body literal in it. */
function callPush(m: Machine, delta: string, n: number): DetectorResult {
  // (`buf` is empty: `textFrom` is 0.)
  withhold(m, n)
  m.textFrom = 0
  passed(m, delta, n, delta.charCodeAt(n - 1))
  return resultOf(m, "", m.base)
}

/** A push the fast path took, stopped at `stop` in the delta (see {@link pushDelta}). */
function stoppedPush(m: Machine, delta: string, stop: number): DetectorResult {
  const plain = plainPush(m, delta, stop)
  if (plain !== undefined) return plain
  run(m)
  return settle(m)
}

/** A push the fast path could not take (see {@link pushDelta}). */
function slowPush(m: Machine, delta: string): DetectorResult {
  const call = m.callQuick
  if (call !== undefined && typeof delta === "string") {
    // Inside a call (a long parameter value), nothing held: a short delta where no body literal
    // can start is withheld whole, as the in-call path below would withhold it (checked here
    // first: in `pushDelta` it made the prose fast path too big for V8 to inline).
    const n = delta.length
    if (n > 0 && n < FAR && skipNear(delta, 0, n, call) === n) return callPush(m, delta, n)
  }
  if (typeof delta !== "string") throw new TypeError("tool-rescue: push(delta) expects a string")
  if (m.ended) throw new TypeError("tool-rescue: push() after end(); call reset() to reuse the detector")
  if (delta.length === 0) return settle(m)
  if (!m.anchor && m.unanswered === undefined && m.highHeld.length === 0) {
    if (m.state === "text") {
      // Something held, or a long delta: `plainPush` appends it, and releases it or leaves it in `buf` for the machine.
      const plain = plainPush(m, delta, -1)
      if (plain !== undefined) return plain
      run(m)
      return settle(m)
    }
    if (m.buf.length === 0 && m.reasoning === undefined) {
      if (m.state === "inline-run") return stepPush(m, delta, stateInlineRun)
      if (m.state === "line-start") return stepPush(m, delta, stateLineStart)
    }
  }
  if ((m.state === "fence" || m.state === "indented-code") && codeLinePush(m, delta))
    return result(m, delta, m.base)
  const d = m.draft
  if (m.buf.length === 0 && m.state === "markup-tags" && d !== undefined && d.block === undefined) {
    // Fast path inside a call (a long parameter value): no character of the delta can start a body literal.
    const len = delta.length
    const plain = skipPlain(delta, 0, d.body.scan, m) === len
    forgetSearches(m)
    if (plain) return callPush(m, delta, len)
  }
  // `settle` left only the undecided tail in `buf`: appending never copies decided text.
  m.buf += delta
  run(m)
  return settle(m)
}

function endStream(m: Machine): DetectorResult {
  if (m.ended) return { text: "", markup: NO_MARKUP, withheld: NO_SPANS, decided: m.base + m.buf.length }
  m.final = true
  run(m)
  if (m.draft !== undefined) {
    m.pos = m.buf.length
    endMarkup(m, m.draft, false)
  } else if (m.pos < m.buf.length) {
    // Unreachable by design (every state decides at the end); kept so no input is ever lost.
    m.pos = m.buf.length
  }
  // Release the text decided at the end before the queue is flushed: a visible answer in it
  // (a held word disproved only now) still marks the reasoning before it as answered.
  if (m.draft === undefined) release(m, m.pos)
  m.ended = true
  flushQueue(m)
  return settle(m)
}

function heldCount(m: Machine): number {
  return m.buf.length - m.pos + m.highHeld.length
}
