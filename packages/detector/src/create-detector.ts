/**
 * The incremental detector: one pass over the stream, one named state at a time.
 *
 * The input that has arrived but is not decided yet lives in `buf` (absolute offset `base`);
 * `pos` is the scan position in it. A state handler scans from `pos`, and either moves on (returns
 * true) or stops because the next decision needs characters that have not arrived (returns false,
 * `pos` at the first undecided character). Everything before `pos` has been decided: released as
 * visible text, or withheld as markup. At the end of a push the decided prefix is dropped, so the
 * buffer only ever holds an undecided tail: a possible marker prefix (longest first), or an
 * undecided candidate capped at `maxHoldChars`. Nothing is ever rescanned but that tail.
 *
 * Decisions look at a window that ends at the arrived input or at the hold cap, never beyond,
 * so they depend on the characters only and not on the chunking (split invariance).
 *
 * @see https://spec.commonmark.org/0.31.2/#fenced-code-blocks (CommonMark §4.5)
 * @see https://spec.commonmark.org/0.31.2/#code-spans (CommonMark §6.1)
 */
import {
  type CompiledBody,
  type CompiledReasoning,
  type LiteralEntry,
  type LiteralIndex,
  NEXT_VALUE,
  SEPARATOR,
  type Start,
  tablesFor,
  VALUE_START,
} from "./compile.ts"
import type { BodyEntry, OpenerRow, ReasoningClose } from "./format-table.ts"
import { type Capture, FAIL, isSpace, MORE, match } from "./pattern.ts"
import { resolveOptions } from "./resolve-options.ts"
import { skipPlain } from "./skip-plain.ts"
import type { Detector, DetectorOptions, DetectorResult, Markup } from "./types.ts"

// Character codes used on the hot paths.
const TAB = 9
const LF = 10
const CR = 13
const SPACE = 32
const QUOTE = 34 // '"'
const APOSTROPHE = 39 // "'"
const LPAREN = 40 // "("
const RPAREN = 41 // ")"
const COMMA = 44 // ","
const COLON = 58 // ":"
const LBRACKET = 91 // "["
const BACKSLASH = 92 // "\"
const RBRACKET = 93 // "]"
const BACKTICK = 96 // "`"
const LBRACE = 123 // "{"
const RBRACE = 125 // "}"
const TILDE = 126 // "~"

/** What may stand between a call header and its JSON payload (Harmony, Mistral v13). */
const PAYLOAD_INTRODUCERS = ["<|constrain|>", "<|message|>", "<|channel|>", "json", "[ARGS]"]
/** Longest key or name string captured from a JSON payload. */
const MAX_NAME = 256
/** Open inline-code runs remembered per paragraph (more distinct run lengths than this are literal). */
const MAX_RUNS = 16

/** The states of the machine. */
type State =
  /** At the start of a line: indentation, then a fence, a line-anchored opener, or text. */
  | "line-start"
  /** Prose: skip to the next trigger character. */
  | "text"
  /** After an opening backtick fence run: the info string decides whether it is a fence. */
  | "fence-info"
  /** Inside a fenced code block, mid-line. */
  | "fence"
  /** At the start of a line inside a fenced code block. */
  | "fence-line-start"
  /** Counting a possible closing fence run. */
  | "fence-close"
  /** After a closing fence run: only spaces or tabs may follow on the line. */
  | "fence-close-tail"
  /** A marker inside a possible inline code span: looking for a closing run before deciding. */
  | "code-check"
  /** Inside a tool call (withheld). */
  | "markup"
  /** Between the parts of a tool call: an optional trailing closer, another value, or the end. */
  | "markup-tail"

/** What `markup-tail` is waiting for. */
type Tail =
  /** Before a JSON payload: a value, a closer, or nothing (the header was the whole call). */
  | "value-start"
  /** After a JSON or pythonic value: a closer, another value (inside an envelope), or the end. */
  | "value-after"
  /** After a bare call's own close (`</function>`): an orphan envelope closer, or the end. */
  | "bare"

/** A reasoning block. */
interface Block {
  /** Visible non-whitespace text came after the block closed. */
  answered: boolean
  /** The block holds markup (so its answer matters). */
  marked: boolean
}

/** One call inside open markup. */
interface Call {
  name: string | undefined
  start: number
  structured: boolean
  args: boolean
}

/** Open markup. */
interface Draft {
  readonly row: OpenerRow
  readonly body: CompiledBody
  readonly start: number
  readonly block: Block | undefined
  readonly calls: Call[]
  closing: boolean
}

/** Decided markup waiting for its reasoning block's answer (reported in stream order). */
interface Queued {
  readonly markup: Omit<Markup, "answerFollows">
  readonly block: Block | undefined
}

const NO_MARKUP: readonly Markup[] = Object.freeze([])
/** Sentinel of `candidates`: the decision needs the next character. */
const WAIT: readonly LiteralEntry<never>[] = Object.freeze([])

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
  const tables = tablesFor(enabled, [...tools])
  const maxHold = Math.max(maxHoldChars, tables.longest)
  const capture: Capture = { name: undefined }

  // --- input window ---
  let buf = ""
  let base = 0
  let pos = 0
  let textFrom = 0
  let prevCode = LF
  let final = false
  let ended = false
  let state: State = "line-start"
  // --- output ---
  /**
   * Visible text released during this call. Usually one piece; several are appended with `+`,
   * which V8 keeps as a rope (no copy) until the caller reads it: linear, and cheaper here than an
   * array (whose `length = 0` reset is a runtime call on every delta).
   */
  let out = ""
  let found: Markup[] = []
  let queue: Queued[] = []
  let unanswered: Block[] = []
  let highHeld = ""
  // --- Markdown ---
  let lineIndent = 0
  let fenceChar = 0
  let fenceLen = 0
  let closeRun = 0
  let runs: number[] = []
  let codeUntil = -1
  let checkStart = 0
  let checkPos = 0
  let anchor = true
  // --- reasoning ---
  let reasoning: CompiledReasoning | undefined
  let block: Block | undefined
  // --- markup ---
  let draft: Draft | undefined
  let tail: Tail = "value-start"
  let jDepth = 0
  let jCallDepth = 0
  let jString = false
  let jEscape = false
  let jExpect = 0 // 0: neither, 1: a key, 2: a value (inside a call object)
  let jNameNext = false
  let jInCall = false
  // --- last match ---
  let hitStart: Start | undefined
  let hitClose: ReasoningClose | undefined
  let hitEntry: BodyEntry | undefined
  let hitName: string | undefined

  function reset(): void {
    buf = ""
    base = pos = textFrom = 0
    prevCode = LF
    final = ended = false
    state = "line-start"
    out = ""
    found = []
    queue = []
    unanswered = []
    highHeld = ""
    lineIndent = fenceChar = fenceLen = closeRun = 0
    runs = []
    codeUntil = -1
    checkStart = checkPos = 0
    anchor = true
    reasoning = block = draft = undefined
    tail = "value-start"
    resetValue()
  }

  function resetValue(): void {
    jDepth = jCallDepth = jExpect = 0
    jString = jEscape = jNameNext = jInCall = false
  }

  // --- windows -------------------------------------------------------------------------------
  // A decision at `i` may look at most `maxHold` characters ahead; reaching that cap counts as
  // the end of input, so the decision is the same however the stream was chunked.

  function limitAt(i: number): number {
    return Math.min(buf.length, i + maxHold)
  }
  function finalAt(i: number): boolean {
    return final || i + maxHold <= buf.length
  }

  /** The literals that may start at `i`, longest first; {@link WAIT} when the window ends after one character. */
  function candidates<T>(
    index: LiteralIndex<T>,
    i: number,
    limit: number,
    fin: boolean,
  ): readonly LiteralEntry<T>[] | undefined {
    const first = buf.charCodeAt(i)
    if (i + 1 >= limit) {
      if (!fin && first < 128 && index.longer[first] !== 0) return WAIT
      return index.singles.get(first)
    }
    return index.byPair.get(first * 65536 + buf.charCodeAt(i + 1)) ?? index.singles.get(first)
  }

  /** Matches the rest of literal `s` (its first character already matched) at `i`. */
  function literalAt(s: string, i: number, limit: number, fin: boolean): number {
    for (let k = 1; k < s.length; k++) {
      if (i + k >= limit) return fin ? FAIL : MORE
      if (buf.charCodeAt(i + k) !== s.charCodeAt(k)) return FAIL
    }
    return i + s.length
  }

  /** Offered names win; `to=functions.shelljson` (Harmony glued to its constraint) names `shell`. */
  function normalize(name: string): string {
    if (tools.has(name) || !name.endsWith("json")) return name
    const bare = name.slice(0, -4)
    return tools.has(bare) ? bare : name
  }

  /** A markup opener or reasoning opener at `i` (`hitStart`, `hitName`; returns the end). */
  function matchStart(index: LiteralIndex<Start>, i: number): number {
    const limit = limitAt(i)
    const fin = finalAt(i)
    const list = candidates(index, i, limit, fin)
    if (list === undefined) return FAIL
    if (list === WAIT) return MORE
    for (const entry of list) {
      const end = literalAt(entry.literal, i, limit, fin)
      // Longest first: while a longer literal may still complete, nothing shorter is decided.
      if (end === MORE) return MORE
      if (end === FAIL) continue
      for (const item of entry.items) {
        if (item.kind === "reasoning" && reasoning !== undefined) continue // blocks do not nest
        capture.name = undefined
        const confirm = item.kind === "markup" ? item.row.confirm : item.row.row.confirm
        const stop = match(confirm, buf, end, limit, fin, capture)
        if (stop === MORE) return MORE
        if (stop === FAIL) continue
        let name: string | undefined = capture.name
        if (item.kind === "markup") {
          if (item.row.toolName !== undefined) name = item.row.toolName
          if (name !== undefined) name = normalize(name)
          // Bare openers (`<function=NAME>`) are markup only for an offered tool (llama.cpp's rule).
          if (item.row.gate && tools.size > 0 && (name === undefined || !tools.has(name))) continue
        }
        hitStart = item
        hitName = name
        return stop
      }
    }
    return FAIL
  }

  /** A closing marker of the open reasoning block at `i` (`hitClose`; returns the end). */
  function matchClose(index: LiteralIndex<ReasoningClose>, i: number): number {
    const limit = limitAt(i)
    const fin = finalAt(i)
    const list = candidates(index, i, limit, fin)
    if (list === undefined) return FAIL
    if (list === WAIT) return MORE
    for (const entry of list) {
      const end = literalAt(entry.literal, i, limit, fin)
      if (end === MORE) return MORE
      if (end === FAIL) continue
      hitClose = entry.items[0]!
      return end
    }
    return FAIL
  }

  /** A literal of the open call's body at `i` (`hitEntry`, `hitName`; returns the end). */
  function matchBody(index: LiteralIndex<BodyEntry>, i: number): number {
    const limit = limitAt(i)
    const fin = finalAt(i)
    const list = candidates(index, i, limit, fin)
    if (list === undefined) return FAIL
    if (list === WAIT) return MORE
    for (const entry of list) {
      let end = literalAt(entry.literal, i, limit, fin)
      if (end === MORE) return MORE
      if (end === FAIL) continue
      const item = entry.items[0]!
      capture.name = undefined
      if (item.pattern !== undefined) {
        end = match(item.pattern, buf, end, limit, fin, capture)
        if (end === MORE) return MORE
        if (end === FAIL) continue
      }
      hitEntry = item
      hitName = capture.name === undefined ? undefined : normalize(capture.name)
      return end
    }
    return FAIL
  }

  // --- output --------------------------------------------------------------------------------

  /** Releases `buf[textFrom, to)` as visible text. */
  function release(to: number): void {
    if (to <= textFrom) return
    if (unanswered.length > 0 && reasoning === undefined) {
      for (let k = textFrom; k < to; k++) {
        const c = buf.charCodeAt(k)
        if (!(isSpace(c) || c === 0xa0 || c === 0xfeff || c === 0x3000)) {
          // A visible answer follows the closed reasoning blocks: their markup was a rehearsal.
          for (const b of unanswered) b.answered = true
          unanswered = []
          flushQueue()
          break
        }
      }
    }
    out = out.length === 0 ? buf.slice(textFrom, to) : out + buf.slice(textFrom, to)
    textFrom = to
  }

  function flushQueue(): void {
    let k = 0
    for (; k < queue.length; k++) {
      const q = queue[k]!
      if (q.block !== undefined && !q.block.answered && !ended) break
      found.push({ ...q.markup, answerFollows: q.block?.answered ?? false })
    }
    if (k > 0) queue = queue.slice(k)
  }

  // --- reasoning -----------------------------------------------------------------------------

  function openReasoning(i: number, row: CompiledReasoning, end: number): boolean {
    release(i)
    reasoning = row
    block = { answered: false, marked: false }
    release(end)
    pos = end
    runs = []
    codeUntil = -1
    return true
  }

  /** Closes the reasoning block whose closer is at `i`; scanning resumes at `end` (`i` for a peek closer). */
  function closeReasoning(end: number): boolean {
    release(end)
    if (block?.marked) unanswered.push(block)
    reasoning = block = undefined
    pos = textFrom = end
    anchor = true
    runs = []
    codeUntil = -1
    return true
  }

  // --- markup --------------------------------------------------------------------------------

  function openMarkup(i: number, row: OpenerRow, end: number, name: string | undefined): boolean {
    release(i)
    // A Harmony message addressed to a function is a new message: the analysis before it is over.
    if (row.endsAnalysis && reasoning?.row.harmony) closeReasoning(i)
    anchor = false
    runs = []
    codeUntil = -1
    if (block !== undefined && reasoning !== undefined) block.marked = true
    const body = tables.bodies.get(row)!
    const d: Draft = {
      row,
      body,
      start: base + i,
      block: reasoning === undefined ? undefined : block,
      calls: [],
      closing: false,
    }
    if (!row.rescan && name !== undefined)
      d.calls.push({ name, start: base + i, structured: row.structured, args: false })
    draft = d
    pos = textFrom = row.rescan ? i : end
    resetValue()
    if (body.spec.kind === "json") {
      state = "markup-tail"
      tail = "value-start"
    } else state = "markup"
    return true
  }

  /** Closes the open markup at `pos`. */
  function endMarkup(complete: boolean): void {
    const d = draft!
    const end = base + pos
    const calls: Call[] =
      d.calls.length > 0 ? d.calls : [{ name: undefined, start: d.start, structured: false, args: false }]
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k]!
      queue.push({
        block: d.block,
        markup: {
          format: d.row.format,
          toolName: c.name,
          offered: c.name !== undefined && tools.has(c.name),
          opening: d.row.opening,
          closing: d.closing,
          structured: c.structured,
          complete,
          inReasoning: d.block !== undefined,
          start: k === 0 ? d.start : c.start,
          end: k + 1 < calls.length ? calls[k + 1]!.start : end,
        },
      })
    }
    draft = undefined
    textFrom = pos
    lineIndent = 0
    state = (pos > 0 ? buf.charCodeAt(pos - 1) : prevCode) === LF ? "line-start" : "text"
    flushQueue()
  }

  function currentCall(): Call | undefined {
    return draft?.calls[draft.calls.length - 1]
  }

  /** A reasoning closer (ends markup inside reasoning, unconsumed) or a body closer at `i`. 1: the markup ended. */
  function closerAt(i: number): number {
    const d = draft!
    if (d.block !== undefined && reasoning !== undefined) {
      const r = matchClose(reasoning.close, i)
      if (r === MORE) return MORE
      if (r >= 0) {
        pos = i
        endMarkup(false)
        return 1
      }
    }
    const r = matchBody(d.body.entries, i)
    if (r === MORE) return MORE
    if (r >= 0 && hitEntry!.role === "closer") {
      d.closing = true
      pos = r
      endMarkup(true)
      return 1
    }
    return 0
  }

  // --- states --------------------------------------------------------------------------------

  function stateLineStart(): boolean {
    const len = buf.length
    let i = pos
    for (; i < len; i++) {
      const c = buf.charCodeAt(i)
      if (c === SPACE) lineIndent++
      else if (c === TAB) lineIndent += 4
      else break
    }
    pos = i
    if (i === len) return false
    const c = buf.charCodeAt(i)
    if (c === LF) {
      // A blank line ends the paragraph: unmatched backtick runs stay literal (CommonMark §6.1).
      runs = []
      codeUntil = -1
      lineIndent = 0
      pos = i + 1
      return true
    }
    if (lineIndent <= 3 && (c === BACKTICK || c === TILDE)) {
      // ```markdown
      // > | ~~~js
      //     ^
      // ```
      const limit = limitAt(i)
      let j = i
      while (j < limit && buf.charCodeAt(j) === c) j++
      if (j === limit && !finalAt(i)) return false
      if (j - i >= 3) {
        anchor = false
        runs = []
        codeUntil = -1
        fenceLen = j - i
        pos = j
        if (c === TILDE) {
          fenceChar = TILDE
          state = "fence"
        } else state = "fence-info"
        return true
      }
    } else if (lineIndent <= 3 && c < 128 && tables.line.trigger[c] !== 0) {
      const r = matchStart(tables.line, i)
      if (r === MORE) return false
      if (r >= 0 && hitStart?.kind === "markup") return openMarkup(i, hitStart.row, r, hitName)
    }
    state = "text"
    return true
  }

  function stateText(): boolean {
    const len = buf.length
    let i = pos
    if (anchor) {
      // Start-anchored formats: the first visible character of the response (or after reasoning).
      // Line feeds still go through `line-start` (a fence may open there).
      for (; i < len; i++) {
        const c = buf.charCodeAt(i)
        if (!(c === SPACE || c === TAB || c === CR)) break
      }
      pos = i
      if (i === len) return false
    }
    if (anchor && buf.charCodeAt(i) !== LF) {
      const r = matchStart(tables.anchor, i)
      if (r === MORE) return false
      anchor = false
      if (r >= 0) return act(i, r)
    }
    const scanner = reasoning === undefined ? tables.textScan : reasoning.textScan
    for (;;) {
      i = skipPlain(buf, i, scanner)
      pos = i
      if (i >= len) return false
      const c = buf.charCodeAt(i)
      if (c === LF) {
        // Most lines start with plain text: stay here unless the next character matters at a line start.
        const next = i + 1 < len ? buf.charCodeAt(i + 1) : LF
        if (
          next > SPACE &&
          next !== BACKTICK &&
          next !== TILDE &&
          !(next < 128 && tables.line.trigger[next] !== 0)
        ) {
          i++
          continue
        }
        pos = i + 1
        lineIndent = 0
        state = "line-start"
        return true
      }
      if (c === BACKTICK) {
        const limit = limitAt(i)
        let j = i
        while (j < limit && buf.charCodeAt(j) === BACKTICK) j++
        if (j === limit && !finalAt(i)) return false
        addRun(j - i)
        i = j
        continue
      }
      const r = markerAt(i)
      if (r === MORE) return false
      if (r === FAIL) {
        i++
        continue
      }
      // Markup or a reasoning marker. Inside a possible inline code span it is an example, unless
      // the span never closes (then its opening run was literal text).
      if (runs.length > 0) {
        if (base + i < codeUntil) {
          i++
          continue
        }
        checkStart = checkPos = base + i
        state = "code-check"
        return true
      }
      return act(i, r)
    }
  }

  /** What starts at `i` in text: a reasoning closer, then openers. */
  function markerAt(i: number): number {
    if (reasoning !== undefined) {
      const r = matchClose(reasoning.close, i)
      if (r !== FAIL) {
        hitStart = undefined
        return r
      }
    }
    hitClose = undefined
    return matchStart(tables.text, i)
  }

  /** Acts on the match `markerAt` or an anchored lookup just made at `i`. */
  function act(i: number, end: number): boolean {
    if (hitClose !== undefined && hitStart === undefined) return closeReasoning(hitClose.peek ? i : end)
    const start = hitStart!
    if (start.kind === "reasoning") return openReasoning(i, start.row, end)
    return openMarkup(i, start.row, end, hitName)
  }

  /** A backtick run of length `k` outside fences: opens or closes an inline code candidate. */
  function addRun(k: number): void {
    const at = runs.indexOf(k)
    if (at >= 0) {
      // It closes the first open run of its length; runs opened after that one were inside the span.
      runs.length = at
      codeUntil = -1
    } else if (runs.length < MAX_RUNS) runs.push(k)
  }

  function stateCodeCheck(): boolean {
    // ```markdown
    // > | see `<tool_call>{"name": "x"}</tool_call>` here
    //          ^ marker        looking for a closing run ^
    // ```
    const start = checkStart - base
    const limit = limitAt(start)
    const fin = finalAt(start)
    let i = checkPos - base
    let paragraphEnd = false
    while (i < limit && !paragraphEnd) {
      const c = buf.charCodeAt(i)
      if (c === BACKTICK) {
        let j = i
        while (j < limit && buf.charCodeAt(j) === BACKTICK) j++
        if (j === limit && !fin) break
        if (runs.includes(j - i)) {
          // Some open run closes: the marker is inside a code span.
          codeUntil = base + i
          state = "text"
          return true
        }
        i = j
      } else if (c === LF) {
        let j = i + 1
        while (
          j < limit &&
          (buf.charCodeAt(j) === SPACE || buf.charCodeAt(j) === TAB || buf.charCodeAt(j) === CR)
        )
          j++
        if (j === limit && !fin) break
        paragraphEnd = j < limit && buf.charCodeAt(j) === LF
        i = j
      } else i++
    }
    if (!paragraphEnd && !(i >= limit && fin)) {
      // The window ended before a decision: resume here when more arrives.
      checkPos = base + i
      return false
    }
    // No run closes before the paragraph ends: every open run is literal, the marker is real.
    runs = []
    codeUntil = -1
    state = "text"
    return true
  }

  function stateFenceInfo(): boolean {
    // ```markdown
    // > | ```js
    //        ^ info string: no backtick allowed (CommonMark §4.5)
    // ```
    const len = buf.length
    let i = pos
    while (i < len && buf.charCodeAt(i) !== LF && buf.charCodeAt(i) !== BACKTICK) i++
    pos = i
    if (i === len) return false
    if (buf.charCodeAt(i) === LF) {
      fenceChar = BACKTICK
      pos = i + 1
      lineIndent = 0
      state = "fence-line-start"
      return true
    }
    // Not a fence: the opening run is an inline code run.
    addRun(fenceLen)
    state = "text"
    return true
  }

  function stateFence(): boolean {
    const len = buf.length
    let i = pos
    if (reasoning === undefined) {
      const j = buf.indexOf("\n", i)
      if (j < 0) {
        pos = len
        return false
      }
      pos = j + 1
    } else {
      // A reasoning closer is a special token: it ends the block even inside a fence.
      const trigger = reasoning.fenceTrigger
      for (;;) {
        while (i < len && !(buf.charCodeAt(i) < 128 && trigger[buf.charCodeAt(i)] !== 0)) i++
        pos = i
        if (i === len) return false
        if (buf.charCodeAt(i) === LF) break
        const r = matchClose(reasoning.close, i)
        if (r === MORE) return false
        if (r >= 0) {
          fenceChar = 0
          state = "text"
          return closeReasoning(hitClose!.peek ? i : r)
        }
        i++
      }
      pos = i + 1
    }
    lineIndent = 0
    state = "fence-line-start"
    return true
  }

  function stateFenceLineStart(): boolean {
    const len = buf.length
    let i = pos
    while (i < len && buf.charCodeAt(i) === SPACE) {
      lineIndent++
      i++
    }
    pos = i
    if (i === len) return false
    const c = buf.charCodeAt(i)
    if (c === LF) {
      lineIndent = 0
      pos = i + 1
      return true
    }
    if (lineIndent <= 3 && c === fenceChar) {
      closeRun = 0
      state = "fence-close"
    } else state = "fence"
    return true
  }

  function stateFenceClose(): boolean {
    // ```markdown
    //   | ```js
    // > | ```
    //     ^ same character, at least as long, then only whitespace
    // ```
    const len = buf.length
    let i = pos
    while (i < len && buf.charCodeAt(i) === fenceChar) {
      closeRun++
      i++
    }
    pos = i
    if (i === len) return false
    state = closeRun >= fenceLen ? "fence-close-tail" : "fence"
    return true
  }

  function stateFenceCloseTail(): boolean {
    const len = buf.length
    let i = pos
    while (i < len && (buf.charCodeAt(i) === SPACE || buf.charCodeAt(i) === TAB || buf.charCodeAt(i) === CR))
      i++
    pos = i
    if (i === len) return false
    if (buf.charCodeAt(i) === LF) {
      fenceChar = 0
      runs = []
      codeUntil = -1
      lineIndent = 0
      pos = i + 1
      state = "line-start"
    } else state = "fence"
    return true
  }

  function stateMarkup(): boolean {
    const kind = draft!.body.spec.kind
    switch (kind) {
      case "tags":
        return stateTags()
      case "json":
        return stateJson()
      case "pythonic":
        return statePythonic()
      default:
        return kind satisfies never
    }
  }

  function stateTags(): boolean {
    const d = draft!
    const body = d.body
    const len = buf.length
    const trigger = body.entries.trigger
    const closing = d.block !== undefined && reasoning !== undefined ? reasoning.close.trigger : undefined
    let i = pos
    for (;;) {
      if (closing === undefined) i = skipPlain(buf, i, body.scan)
      else {
        for (; i < len; i++) {
          const c = buf.charCodeAt(i)
          if (c < 128 && (trigger[c] !== 0 || closing[c] !== 0)) break
        }
      }
      pos = i
      if (i >= len) return false
      if (closing !== undefined) {
        const r = matchClose(reasoning!.close, i)
        if (r === MORE) return false
        if (r >= 0) {
          endMarkup(false)
          return true
        }
      }
      const r = matchBody(body.entries, i)
      if (r === MORE) return false
      if (r === FAIL) {
        i++
        continue
      }
      const entry = hitEntry!
      switch (entry.role) {
        case "closer":
          d.closing = true
          pos = r
          endMarkup(true)
          return true
        case "call":
          d.calls.push({ name: hitName, start: base + i, structured: d.row.structured, args: false })
          break
        case "structure": {
          const c = currentCall()
          if (c !== undefined) c.structured = true
          break
        }
        case "call-end": {
          const c = currentCall()
          if (c !== undefined) c.structured = true
          if (body.spec.kind === "tags" && body.spec.bare !== undefined) {
            pos = r
            state = "markup-tail"
            tail = "bare"
            return true
          }
          break
        }
        default:
          return entry.role satisfies never
      }
      i = r
    }
  }

  function stateJson(): boolean {
    const d = draft!
    const body = d.body
    const names = body.spec.kind === "json" ? body.spec.names : "none"
    const len = buf.length
    const inString = body.stringTrigger
    const inValue = body.valueTrigger
    const closing = d.block !== undefined && reasoning !== undefined ? reasoning.close.trigger : undefined
    let i = pos
    while (i < len) {
      if (jString) {
        if (jEscape) {
          jEscape = false
          i++
          continue
        }
        let c = 0
        for (; i < len; i++) {
          c = buf.charCodeAt(i)
          if (c < 128 && (inString[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
        }
        if (i >= len) break
        if (c === BACKSLASH) jEscape = true
        else if (c === QUOTE) jString = false
        else {
          pos = i
          const r = closerAt(i)
          if (r === MORE) return false
          if (r === 1) return true
        }
        i++
        continue
      }
      let c = 0
      for (; i < len; i++) {
        c = buf.charCodeAt(i)
        if (c < 128 && (inValue[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
      }
      if (i >= len) break
      switch (c) {
        case QUOTE: {
          if (
            names !== "none" &&
            jInCall &&
            jDepth === jCallDepth &&
            (jExpect === 1 || (jExpect === 2 && jNameNext))
          ) {
            const end = captureString(i)
            if (end === MORE) {
              pos = i
              return false
            }
            if (end >= 0) {
              onJsonString(buf.slice(i + 1, end), names)
              i = end + 1
              continue
            }
          }
          jString = true
          break
        }
        case LBRACE:
        case LBRACKET:
          jDepth++
          jNameNext = false
          if (jDepth === 1 && jCallDepth === 0) jCallDepth = c === LBRACE ? 1 : 2
          if (c === LBRACE && jDepth === jCallDepth && names !== "none") {
            d.calls.push({ name: undefined, start: base + i, structured: false, args: false })
            jInCall = true
            jExpect = 1
          }
          break
        case RBRACE:
        case RBRACKET:
          if (c === RBRACE && jInCall && jDepth === jCallDepth) {
            const call = currentCall()
            if (call?.name !== undefined) call.structured = true
            jInCall = false
          }
          jDepth--
          if (jDepth <= 0) {
            pos = i + 1
            state = "markup-tail"
            tail = "value-after"
            return true
          }
          break
        case COMMA:
          if (jInCall && jDepth === jCallDepth) {
            jExpect = 1
            jNameNext = false
          }
          break
        case COLON:
          if (jInCall && jDepth === jCallDepth) jExpect = 2
          break
        default: {
          pos = i
          const r = closerAt(i)
          if (r === MORE) return false
          if (r === 1) return true
        }
      }
      i++
    }
    pos = len
    return false
  }

  /** The end quote of a short escape-free string at `i`, {@link MORE}, or FAIL (not a name). */
  function captureString(i: number): number {
    const span = Math.min(MAX_NAME + 2, maxHold)
    const limit = Math.min(buf.length, i + span)
    const fin = final || i + span <= buf.length
    for (let j = i + 1; j < limit; j++) {
      const c = buf.charCodeAt(j)
      if (c === QUOTE) return j
      if (c === BACKSLASH) return FAIL
    }
    return fin ? FAIL : MORE
  }

  function onJsonString(s: string, names: "keys" | "first-key" | "none"): void {
    const call = currentCall()
    if (call === undefined) return
    if (jExpect === 1) {
      if (names === "first-key") {
        if (call.name === undefined) {
          call.name = normalize(s)
          call.structured = true
        }
      } else if (s === "name" || s === "tool_name") jNameNext = true
      else if (s === "arguments" || s === "parameters") {
        call.args = true
        if (call.name !== undefined) call.structured = true
      }
      jExpect = 0
    } else {
      if (call.name === undefined) call.name = normalize(s)
      if (call.args) call.structured = true
      jNameNext = false
      jExpect = 0
    }
  }

  function statePythonic(): boolean {
    const d = draft!
    const spec = d.body.spec
    const lines = spec.kind === "pythonic" && spec.lines
    const callDepth = lines ? 0 : 1
    const trigger = d.body.valueTrigger
    const closing = d.block !== undefined && reasoning !== undefined ? reasoning.close.trigger : undefined
    const len = buf.length
    let i = pos
    while (i < len) {
      const c = buf.charCodeAt(i)
      if (jString) {
        if (jEscape) jEscape = false
        else if (c === BACKSLASH) jEscape = true
        else if (c === jExpect) jString = false
        i++
        continue
      }
      if (jDepth === callDepth && isIdentStart(c)) {
        const limit = Math.min(len, i + Math.min(MAX_NAME, maxHold))
        let j = i + 1
        while (j < limit && isIdentPart(buf.charCodeAt(j))) j++
        if (j === limit && !(final || i + Math.min(MAX_NAME, maxHold) <= len)) {
          pos = i
          return false
        }
        if (j < len && buf.charCodeAt(j) === LPAREN) {
          let fn = buf.slice(i, j)
          if (fn.endsWith(".call")) fn = fn.slice(0, -5) // Llama 3.1 built-ins: `brave_search.call(`
          d.calls.push({ name: normalize(fn), start: base + i, structured: false, args: false })
          jDepth++
          i = j + 1
          continue
        }
        i = j
        continue
      }
      if (c === QUOTE || c === APOSTROPHE) {
        jString = true
        jExpect = c
      } else if (c === LPAREN || c === LBRACKET || c === LBRACE) jDepth++
      else if (c === RPAREN || c === RBRACKET || c === RBRACE) {
        jDepth--
        if (c === RPAREN && jDepth === callDepth) {
          const call = currentCall()
          if (call !== undefined) call.structured = true
        }
        if (!lines && jDepth <= 0) {
          pos = i + 1
          state = "markup-tail"
          tail = "value-after"
          return true
        }
      } else if (c < 128 && (trigger[c] !== 0 || (closing !== undefined && closing[c] !== 0))) {
        pos = i
        const r = closerAt(i)
        if (r === MORE) return false
        if (r === 1) return true
      }
      i++
    }
    pos = len
    return false
  }

  function stateMarkupTail(): boolean {
    const d = draft!
    const body = d.body
    const limit = limitAt(pos)
    const fin = finalAt(pos)
    if (tail === "bare") {
      if (body.tail !== undefined) {
        const r = match(body.tail, buf, pos, limit, fin, capture)
        if (r === MORE) return false
        if (r >= 0) {
          d.closing = true
          pos = r
        }
      }
      endMarkup(true)
      return true
    }
    if (body.closer !== undefined) {
      const r = match(body.closer, buf, pos, limit, fin, capture)
      if (r === MORE) return false
      if (r >= 0) {
        d.closing = true
        pos = r
        endMarkup(true)
        return true
      }
    }
    const json = body.spec.kind === "json"
    if (tail === "value-start" || (json && body.closer !== undefined)) {
      const r = match(VALUE_START, buf, pos, limit, fin, capture)
      if (r === MORE) return false
      if (r >= 0) {
        // A header that named the tool (`to=functions.NAME`, `NAME[ARGS]`) followed by its arguments.
        const call = currentCall()
        if (call !== undefined && body.spec.kind === "json" && body.spec.names === "none")
          call.structured = true
        pos = r
        resetValue()
        state = "markup"
        return true
      }
    }
    if (tail === "value-start" && final && cutBeforePayload()) {
      // The stream ended between a call's header and its payload: the call is truncated.
      pos = buf.length
      endMarkup(false)
      return true
    }
    if (tail === "value-after" && json) {
      // Llama 3.x separates calls with `;`; MiniMax M1 writes one object per line.
      const r = match(SEPARATOR, buf, pos, limit, fin, capture)
      if (r === MORE) return false
      if (r >= 0) {
        const next = match(NEXT_VALUE, buf, r, limitAt(r), finalAt(r), capture)
        if (next === MORE) return false
        if (next >= 0) {
          pos = next
          resetValue()
          state = "markup"
          return true
        }
      }
    }
    endMarkup(true)
    return true
  }

  /** At the end of the stream: is the rest after `pos` blank, or a cut-off payload introducer? */
  function cutBeforePayload(): boolean {
    let i = pos
    while (i < buf.length && isSpace(buf.charCodeAt(i))) i++
    const rest = buf.slice(i)
    return rest === "" || PAYLOAD_INTRODUCERS.some((p) => p.startsWith(rest))
  }

  function run(): void {
    for (;;) {
      let more: boolean
      switch (state) {
        case "line-start":
          more = stateLineStart()
          break
        case "text":
          more = stateText()
          break
        case "fence-info":
          more = stateFenceInfo()
          break
        case "fence":
          more = stateFence()
          break
        case "fence-line-start":
          more = stateFenceLineStart()
          break
        case "fence-close":
          more = stateFenceClose()
          break
        case "fence-close-tail":
          more = stateFenceCloseTail()
          break
        case "code-check":
          more = stateCodeCheck()
          break
        case "markup":
          more = stateMarkup()
          break
        case "markup-tail":
          more = stateMarkupTail()
          break
        default:
          state satisfies never
          return
      }
      if (!more) return
    }
  }

  function visible(): boolean {
    return draft === undefined
  }

  /** Releases what the states decided, drops the decided prefix, and returns the result. */
  function settle(): DetectorResult {
    if (visible()) release(pos)
    else textFrom = pos
    if (pos > 0) {
      prevCode = buf.charCodeAt(pos - 1)
      base += pos
      buf = buf.slice(pos)
      pos = textFrom = 0
    }
    let text = out
    out = ""
    if (highHeld.length > 0) {
      text = highHeld + text
      highHeld = ""
    }
    if (!final && text.length > 0) {
      // Never release half a surrogate pair: hold a trailing high surrogate until its pair arrives.
      const last = text.charCodeAt(text.length - 1)
      if (last >= 0xd800 && last <= 0xdbff) {
        highHeld = text.slice(-1)
        text = text.slice(0, -1)
      }
    }
    if (found.length === 0) return { text, markup: NO_MARKUP }
    const markup = found
    found = []
    return { text, markup }
  }

  function push(delta: string): DetectorResult {
    if (typeof delta !== "string") throw new TypeError("tool-rescue: push(delta) expects a string")
    if (ended) throw new TypeError("tool-rescue: push() after end(); call reset() to reuse the detector")
    if (delta.length === 0) return settle()
    if (buf.length === 0 && state === "text" && !anchor && unanswered.length === 0 && highHeld.length === 0) {
      // Fast path: nothing held, plain prose, and no character in the delta can start anything.
      const len = delta.length
      const i = skipPlain(delta, 0, reasoning === undefined ? tables.textScan : reasoning.textScan)
      const last = delta.charCodeAt(len - 1)
      if (i === len && !(last >= 0xd800 && last <= 0xdbff)) {
        base += len
        prevCode = last
        return found.length === 0 ? { text: delta, markup: NO_MARKUP } : settleWith(delta)
      }
    }
    // `settle` left only the undecided tail in `buf`: appending never copies decided text.
    buf += delta
    run()
    return settle()
  }

  function settleWith(text: string): DetectorResult {
    const markup = found
    found = []
    return { text, markup }
  }

  function end(): DetectorResult {
    if (ended) return { text: "", markup: NO_MARKUP }
    final = true
    run()
    if (draft !== undefined) {
      pos = buf.length
      endMarkup(false)
    } else if (pos < buf.length) {
      // Unreachable by design (every state decides at the end); kept so no input is ever lost.
      pos = buf.length
    }
    ended = true
    flushQueue()
    return settle()
  }

  function held(): number {
    return buf.length - pos + highHeld.length
  }

  return { push, end, reset, held }
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 46
}
