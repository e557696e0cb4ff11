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
  type Tables,
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

/** The state of one detector (one object per detector; the code that works on it is shared). */
interface Machine {
  /** Tools offered this turn. */
  readonly tools: ReadonlySet<string>
  /** Compiled literal tables, shared by detectors with the same formats. */
  readonly tables: Tables
  /** Cap on an undecided candidate (at least the longest literal). */
  readonly maxHold: number
  /** Where patterns store a captured name. */
  readonly capture: Capture
  /** Input received and not yet decided (the undecided tail after each call). */
  buf: string
  /** Absolute offset of `buf[0]` in the stream. */
  base: number
  /** Scan position in `buf`: everything before it is decided. */
  pos: number
  /** Start of the decided visible text not yet released (≤ `pos`). */
  textFrom: number
  /** The character before `buf[0]` (line starts). */
  prevCode: number
  /** `end()` is running: windows end at the input's end. */
  final: boolean
  /** `end()` has run. */
  ended: boolean
  /** The current state. */
  state: State
  /** Visible text released during this call. Several pieces are joined with `+`, which V8 keeps as a rope until read: linear, and cheaper here than an array. */
  out: string
  /** Markup reported by this call. */
  found: Markup[]
  /** Decided markup waiting, in stream order, for a reasoning block's answer. */
  queue: Queued[]
  /** Closed reasoning blocks with markup, waiting for a visible answer. */
  unanswered: Block[]
  /** A trailing high surrogate held until its pair arrives. */
  highHeld: string
  /** Spaces at the start of the current line. */
  lineIndent: number
  /** The open fence's character (0: no fence). */
  fenceChar: number
  /** The open fence's run length (also: a would-be fence's run while its info string is read). */
  fenceLen: number
  /** Length of a possible closing fence run so far. */
  closeRun: number
  /** Open inline-code runs of this paragraph (candidates that may still close). */
  runs: number[]
  /** Absolute offset of a closing run found ahead: markers before it are inside code. */
  codeUntil: number
  /** Absolute offset of the marker whose code span is being checked. */
  checkStart: number
  /** Absolute offset the code-span check resumes at. */
  checkPos: number
  /** Start-anchored formats may still start (start of response, or right after reasoning). */
  anchor: boolean
  /** The open reasoning block's row. */
  reasoning: CompiledReasoning | undefined
  /** The open reasoning block. */
  block: Block | undefined
  /** Open markup. */
  draft: Draft | undefined
  /** What `markup-tail` waits for. */
  tail: Tail
  /** JSON/pythonic nesting depth. */
  jDepth: number
  /** Depth of call objects (1: top-level object, 2: objects in a top-level list). */
  jCallDepth: number
  /** Inside a JSON or Python string. */
  jString: boolean
  /** After a backslash inside a string. */
  jEscape: boolean
  /** JSON: 0 neither, 1 a key, 2 a value (inside a call object); pythonic: the open quote. */
  jExpect: number
  /** The next JSON string value is the call's name. */
  jNameNext: boolean
  /** Inside a call object. */
  jInCall: boolean
  /** What the last successful `matchStart` found. */
  hitStart: Start | undefined
  /** What the last successful `matchClose` found. */
  hitClose: ReasoningClose | undefined
  /** What the last successful `matchBody` found. */
  hitEntry: BodyEntry | undefined
  /** The name the last match captured. */
  hitName: string | undefined
}

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
  const m: Machine = {
    tools,
    tables,
    maxHold: Math.max(maxHoldChars, tables.longest),
    capture: { name: undefined },
    buf: "",
    base: 0,
    pos: 0,
    textFrom: 0,
    prevCode: LF,
    final: false,
    ended: false,
    state: "line-start",
    out: "",
    found: [],
    queue: [],
    unanswered: [],
    highHeld: "",
    lineIndent: 0,
    fenceChar: 0,
    fenceLen: 0,
    closeRun: 0,
    runs: [],
    codeUntil: -1,
    checkStart: 0,
    checkPos: 0,
    anchor: true,
    reasoning: undefined,
    block: undefined,
    draft: undefined,
    tail: "value-start",
    jDepth: 0,
    jCallDepth: 0,
    jString: false,
    jEscape: false,
    jExpect: 0,
    jNameNext: false,
    jInCall: false,
    hitStart: undefined,
    hitClose: undefined,
    hitEntry: undefined,
    hitName: undefined,
  }
  return {
    push: (delta: string): DetectorResult => pushDelta(m, delta),
    end: (): DetectorResult => endStream(m),
    reset: (): void => resetMachine(m),
    held: (): number => heldCount(m),
  }
}

function resetMachine(m: Machine): void {
  m.buf = ""
  m.base = m.pos = m.textFrom = 0
  m.prevCode = LF
  m.final = m.ended = false
  m.state = "line-start"
  m.out = ""
  m.found = []
  m.queue = []
  m.unanswered = []
  m.highHeld = ""
  m.lineIndent = m.fenceChar = m.fenceLen = m.closeRun = 0
  m.runs = []
  m.codeUntil = -1
  m.checkStart = m.checkPos = 0
  m.anchor = true
  m.reasoning = m.block = m.draft = undefined
  m.tail = "value-start"
  resetValue(m)
}

function resetValue(m: Machine): void {
  m.jDepth = m.jCallDepth = m.jExpect = 0
  m.jString = m.jEscape = m.jNameNext = m.jInCall = false
}

// --- windows -------------------------------------------------------------------------------
// A decision at `i` may look at most `maxHold` characters ahead; reaching that cap counts as
// the end of input, so the decision is the same however the stream was chunked.

function limitAt(m: Machine, i: number): number {
  return Math.min(m.buf.length, i + m.maxHold)
}
function finalAt(m: Machine, i: number): boolean {
  return m.final || i + m.maxHold <= m.buf.length
}

/** The literals that may start at `i`, longest first; {@link WAIT} when the window ends after one character. */
function candidates<T>(
  m: Machine,
  index: LiteralIndex<T>,
  i: number,
  limit: number,
  fin: boolean,
): readonly LiteralEntry<T>[] | undefined {
  const first = m.buf.charCodeAt(i)
  if (i + 1 >= limit) {
    if (!fin && first < 128 && index.longer[first] !== 0) return WAIT
    return index.singles.get(first)
  }
  return index.byPair.get(first * 65536 + m.buf.charCodeAt(i + 1)) ?? index.singles.get(first)
}

/** Matches the rest of literal `s` (its first character already matched) at `i`. */
function literalAt(m: Machine, s: string, i: number, limit: number, fin: boolean): number {
  for (let k = 1; k < s.length; k++) {
    if (i + k >= limit) return fin ? FAIL : MORE
    if (m.buf.charCodeAt(i + k) !== s.charCodeAt(k)) return FAIL
  }
  return i + s.length
}

/** Offered names win; `to=functions.shelljson` (Harmony glued to its constraint) names `shell`. */
function normalize(m: Machine, name: string): string {
  if (m.tools.has(name) || !name.endsWith("json")) return name
  const bare = name.slice(0, -4)
  return m.tools.has(bare) ? bare : name
}

/** A markup opener or reasoning opener at `i` (`hitStart`, `hitName`; returns the end). */
function matchStart(m: Machine, index: LiteralIndex<Start>, i: number): number {
  const limit = limitAt(m, i)
  const fin = finalAt(m, i)
  const list = candidates(m, index, i, limit, fin)
  if (list === undefined) return FAIL
  if (list === WAIT) return MORE
  for (const entry of list) {
    const end = literalAt(m, entry.literal, i, limit, fin)
    // Longest first: while a longer literal may still complete, nothing shorter is decided.
    if (end === MORE) return MORE
    if (end === FAIL) continue
    for (const item of entry.items) {
      if (item.kind === "reasoning" && m.reasoning !== undefined) continue // blocks do not nest
      m.capture.name = undefined
      const confirm = item.kind === "markup" ? item.row.confirm : item.row.row.confirm
      const stop = match(confirm, m.buf, end, limit, fin, m.capture)
      if (stop === MORE) return MORE
      if (stop === FAIL) continue
      let name: string | undefined = m.capture.name
      if (item.kind === "markup") {
        if (item.row.toolName !== undefined) name = item.row.toolName
        if (name !== undefined) name = normalize(m, name)
        // Bare openers (`<function=NAME>`) are markup only for an offered tool (llama.cpp's rule).
        if (item.row.gate && m.tools.size > 0 && (name === undefined || !m.tools.has(name))) continue
      }
      m.hitStart = item
      m.hitName = name
      return stop
    }
  }
  return FAIL
}

/** A closing marker of the open reasoning block at `i` (`hitClose`; returns the end). */
function matchClose(m: Machine, index: LiteralIndex<ReasoningClose>, i: number): number {
  const limit = limitAt(m, i)
  const fin = finalAt(m, i)
  const list = candidates(m, index, i, limit, fin)
  if (list === undefined) return FAIL
  if (list === WAIT) return MORE
  for (const entry of list) {
    const end = literalAt(m, entry.literal, i, limit, fin)
    if (end === MORE) return MORE
    if (end === FAIL) continue
    m.hitClose = entry.items[0]!
    return end
  }
  return FAIL
}

/** A literal of the open call's body at `i` (`hitEntry`, `hitName`; returns the end). */
function matchBody(m: Machine, index: LiteralIndex<BodyEntry>, i: number): number {
  const limit = limitAt(m, i)
  const fin = finalAt(m, i)
  const list = candidates(m, index, i, limit, fin)
  if (list === undefined) return FAIL
  if (list === WAIT) return MORE
  for (const entry of list) {
    let end = literalAt(m, entry.literal, i, limit, fin)
    if (end === MORE) return MORE
    if (end === FAIL) continue
    const item = entry.items[0]!
    m.capture.name = undefined
    if (item.pattern !== undefined) {
      end = match(item.pattern, m.buf, end, limit, fin, m.capture)
      if (end === MORE) return MORE
      if (end === FAIL) continue
    }
    m.hitEntry = item
    m.hitName = m.capture.name === undefined ? undefined : normalize(m, m.capture.name)
    return end
  }
  return FAIL
}

// --- output --------------------------------------------------------------------------------

/** Releases `buf[textFrom, to)` as visible text. */
function release(m: Machine, to: number): void {
  if (to <= m.textFrom) return
  if (m.unanswered.length > 0 && m.reasoning === undefined) {
    for (let k = m.textFrom; k < to; k++) {
      const c = m.buf.charCodeAt(k)
      if (!(isSpace(c) || c === 0xa0 || c === 0xfeff || c === 0x3000)) {
        // A visible answer follows the closed reasoning blocks: their markup was a rehearsal.
        for (const b of m.unanswered) b.answered = true
        m.unanswered = []
        flushQueue(m)
        break
      }
    }
  }
  m.out = m.out.length === 0 ? m.buf.slice(m.textFrom, to) : m.out + m.buf.slice(m.textFrom, to)
  m.textFrom = to
}

function flushQueue(m: Machine): void {
  let k = 0
  for (; k < m.queue.length; k++) {
    const q = m.queue[k]!
    if (q.block !== undefined && !q.block.answered && !m.ended) break
    m.found.push({ ...q.markup, answerFollows: q.block?.answered ?? false })
  }
  if (k > 0) m.queue = m.queue.slice(k)
}

// --- reasoning -----------------------------------------------------------------------------

function openReasoning(m: Machine, i: number, row: CompiledReasoning, end: number): boolean {
  release(m, i)
  m.reasoning = row
  m.block = { answered: false, marked: false }
  release(m, end)
  m.pos = end
  m.runs = []
  m.codeUntil = -1
  return true
}

/** Closes the reasoning block whose closer is at `i`; scanning resumes at `end` (`i` for a peek closer). */
function closeReasoning(m: Machine, end: number): boolean {
  release(m, end)
  if (m.block?.marked) m.unanswered.push(m.block)
  m.reasoning = m.block = undefined
  m.pos = m.textFrom = end
  m.anchor = true
  m.runs = []
  m.codeUntil = -1
  return true
}

// --- markup --------------------------------------------------------------------------------

function openMarkup(m: Machine, i: number, row: OpenerRow, end: number, name: string | undefined): boolean {
  release(m, i)
  // A Harmony message addressed to a function is a new message: the analysis before it is over.
  if (row.endsAnalysis && m.reasoning?.row.harmony) closeReasoning(m, i)
  m.anchor = false
  m.runs = []
  m.codeUntil = -1
  if (m.block !== undefined && m.reasoning !== undefined) m.block.marked = true
  const body = m.tables.bodies.get(row)!
  const d: Draft = {
    row,
    body,
    start: m.base + i,
    block: m.reasoning === undefined ? undefined : m.block,
    calls: [],
    closing: false,
  }
  if (!row.rescan && name !== undefined)
    d.calls.push({ name, start: m.base + i, structured: row.structured, args: false })
  m.draft = d
  m.pos = m.textFrom = row.rescan ? i : end
  resetValue(m)
  if (body.spec.kind === "json") {
    m.state = "markup-tail"
    m.tail = "value-start"
  } else m.state = "markup"
  return true
}

/** Closes the open markup at `pos`. */
function endMarkup(m: Machine, complete: boolean): void {
  const d = m.draft!
  const end = m.base + m.pos
  const calls: Call[] =
    d.calls.length > 0 ? d.calls : [{ name: undefined, start: d.start, structured: false, args: false }]
  for (let k = 0; k < calls.length; k++) {
    const c = calls[k]!
    m.queue.push({
      block: d.block,
      markup: {
        format: d.row.format,
        toolName: c.name,
        offered: c.name !== undefined && m.tools.has(c.name),
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
  m.draft = undefined
  m.textFrom = m.pos
  m.lineIndent = 0
  m.state = (m.pos > 0 ? m.buf.charCodeAt(m.pos - 1) : m.prevCode) === LF ? "line-start" : "text"
  flushQueue(m)
}

function currentCall(m: Machine): Call | undefined {
  return m.draft?.calls[m.draft.calls.length - 1]
}

/** A reasoning closer (ends markup inside reasoning, unconsumed) or a body closer at `i`. 1: the markup ended. */
function closerAt(m: Machine, i: number): number {
  const d = m.draft!
  if (d.block !== undefined && m.reasoning !== undefined) {
    const r = matchClose(m, m.reasoning.close, i)
    if (r === MORE) return MORE
    if (r >= 0) {
      m.pos = i
      endMarkup(m, false)
      return 1
    }
  }
  const r = matchBody(m, d.body.entries, i)
  if (r === MORE) return MORE
  if (r >= 0 && m.hitEntry!.role === "closer") {
    d.closing = true
    m.pos = r
    endMarkup(m, true)
    return 1
  }
  return 0
}

// --- states --------------------------------------------------------------------------------

function stateLineStart(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  for (; i < len; i++) {
    const c = m.buf.charCodeAt(i)
    if (c === SPACE) m.lineIndent++
    else if (c === TAB) m.lineIndent += 4
    else break
  }
  m.pos = i
  if (i === len) return false
  const c = m.buf.charCodeAt(i)
  if (c === LF) {
    // A blank line ends the paragraph: unmatched backtick runs stay literal (CommonMark §6.1).
    m.runs = []
    m.codeUntil = -1
    m.lineIndent = 0
    m.pos = i + 1
    return true
  }
  if (m.lineIndent <= 3 && (c === BACKTICK || c === TILDE)) {
    // ```markdown
    // > | ~~~js
    //     ^
    // ```
    const limit = limitAt(m, i)
    let j = i
    while (j < limit && m.buf.charCodeAt(j) === c) j++
    if (j === limit && !finalAt(m, i)) return false
    if (j - i >= 3) {
      m.anchor = false
      m.runs = []
      m.codeUntil = -1
      m.fenceLen = j - i
      m.pos = j
      if (c === TILDE) {
        m.fenceChar = TILDE
        m.state = "fence"
      } else m.state = "fence-info"
      return true
    }
  } else if (m.lineIndent <= 3 && c < 128 && m.tables.line.trigger[c] !== 0) {
    const r = matchStart(m, m.tables.line, i)
    if (r === MORE) return false
    if (r >= 0 && m.hitStart?.kind === "markup") return openMarkup(m, i, m.hitStart.row, r, m.hitName)
  }
  m.state = "text"
  return true
}

function stateText(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  if (m.anchor) {
    // Start-anchored formats: the first visible character of the response (or after reasoning).
    // Line feeds still go through `line-start` (a fence may open there).
    for (; i < len; i++) {
      const c = m.buf.charCodeAt(i)
      if (!(c === SPACE || c === TAB || c === CR)) break
    }
    m.pos = i
    if (i === len) return false
  }
  if (m.anchor && m.buf.charCodeAt(i) !== LF) {
    const r = matchStart(m, m.tables.anchor, i)
    if (r === MORE) return false
    m.anchor = false
    if (r >= 0) return act(m, i, r)
  }
  const scanner = m.reasoning === undefined ? m.tables.textScan : m.reasoning.textScan
  for (;;) {
    i = skipPlain(m.buf, i, scanner)
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
        !(next < 128 && m.tables.line.trigger[next] !== 0)
      ) {
        i++
        continue
      }
      m.pos = i + 1
      m.lineIndent = 0
      m.state = "line-start"
      return true
    }
    if (c === BACKTICK) {
      const limit = limitAt(m, i)
      let j = i
      while (j < limit && m.buf.charCodeAt(j) === BACKTICK) j++
      if (j === limit && !finalAt(m, i)) return false
      addRun(m, j - i)
      i = j
      continue
    }
    const r = markerAt(m, i)
    if (r === MORE) return false
    if (r === FAIL) {
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
      m.state = "code-check"
      return true
    }
    return act(m, i, r)
  }
}

/** What starts at `i` in text: a reasoning closer, then openers. */
function markerAt(m: Machine, i: number): number {
  if (m.reasoning !== undefined) {
    const r = matchClose(m, m.reasoning.close, i)
    if (r !== FAIL) {
      m.hitStart = undefined
      return r
    }
  }
  m.hitClose = undefined
  return matchStart(m, m.tables.text, i)
}

/** Acts on the match `markerAt` or an anchored lookup just made at `i`. */
function act(m: Machine, i: number, end: number): boolean {
  if (m.hitClose !== undefined && m.hitStart === undefined)
    return closeReasoning(m, m.hitClose.peek ? i : end)
  const start = m.hitStart!
  if (start.kind === "reasoning") return openReasoning(m, i, start.row, end)
  return openMarkup(m, i, start.row, end, m.hitName)
}

/** A backtick run of length `k` outside fences: opens or closes an inline code candidate. */
function addRun(m: Machine, k: number): void {
  const at = m.runs.indexOf(k)
  if (at >= 0) {
    // It closes the first open run of its length; runs opened after that one were inside the span.
    m.runs.length = at
    m.codeUntil = -1
  } else if (m.runs.length < MAX_RUNS) m.runs.push(k)
}

function stateCodeCheck(m: Machine): boolean {
  // ```markdown
  // > | see `<tool_call>{"name": "x"}</tool_call>` here
  //          ^ marker        looking for a closing run ^
  // ```
  const start = m.checkStart - m.base
  const limit = limitAt(m, start)
  const fin = finalAt(m, start)
  let i = m.checkPos - m.base
  let paragraphEnd = false
  while (i < limit && !paragraphEnd) {
    const c = m.buf.charCodeAt(i)
    if (c === BACKTICK) {
      let j = i
      while (j < limit && m.buf.charCodeAt(j) === BACKTICK) j++
      if (j === limit && !fin) break
      if (m.runs.includes(j - i)) {
        // Some open run closes: the marker is inside a code span.
        m.codeUntil = m.base + i
        m.state = "text"
        return true
      }
      i = j
    } else if (c === LF) {
      let j = i + 1
      while (
        j < limit &&
        (m.buf.charCodeAt(j) === SPACE || m.buf.charCodeAt(j) === TAB || m.buf.charCodeAt(j) === CR)
      )
        j++
      if (j === limit && !fin) break
      paragraphEnd = j < limit && m.buf.charCodeAt(j) === LF
      i = j
    } else i++
  }
  if (!paragraphEnd && !(i >= limit && fin)) {
    // The window ended before a decision: resume here when more arrives.
    m.checkPos = m.base + i
    return false
  }
  // No run closes before the paragraph ends: every open run is literal, the marker is real.
  m.runs = []
  m.codeUntil = -1
  m.state = "text"
  return true
}

function stateFenceInfo(m: Machine): boolean {
  // ```markdown
  // > | ```js
  //        ^ info string: no backtick allowed (CommonMark §4.5)
  // ```
  const len = m.buf.length
  let i = m.pos
  while (i < len && m.buf.charCodeAt(i) !== LF && m.buf.charCodeAt(i) !== BACKTICK) i++
  m.pos = i
  if (i === len) return false
  if (m.buf.charCodeAt(i) === LF) {
    m.fenceChar = BACKTICK
    m.pos = i + 1
    m.lineIndent = 0
    m.state = "fence-line-start"
    return true
  }
  // Not a fence: the opening run is an inline code run.
  addRun(m, m.fenceLen)
  m.state = "text"
  return true
}

function stateFence(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  if (m.reasoning === undefined) {
    const j = m.buf.indexOf("\n", i)
    if (j < 0) {
      m.pos = len
      return false
    }
    m.pos = j + 1
  } else {
    // A reasoning closer is a special token: it ends the block even inside a fence.
    const trigger = m.reasoning.fenceTrigger
    for (;;) {
      while (i < len && !(m.buf.charCodeAt(i) < 128 && trigger[m.buf.charCodeAt(i)] !== 0)) i++
      m.pos = i
      if (i === len) return false
      if (m.buf.charCodeAt(i) === LF) break
      const r = matchClose(m, m.reasoning.close, i)
      if (r === MORE) return false
      if (r >= 0) {
        m.fenceChar = 0
        m.state = "text"
        return closeReasoning(m, m.hitClose!.peek ? i : r)
      }
      i++
    }
    m.pos = i + 1
  }
  m.lineIndent = 0
  m.state = "fence-line-start"
  return true
}

function stateFenceLineStart(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  while (i < len && m.buf.charCodeAt(i) === SPACE) {
    m.lineIndent++
    i++
  }
  m.pos = i
  if (i === len) return false
  const c = m.buf.charCodeAt(i)
  if (c === LF) {
    m.lineIndent = 0
    m.pos = i + 1
    return true
  }
  if (m.lineIndent <= 3 && c === m.fenceChar) {
    m.closeRun = 0
    m.state = "fence-close"
  } else m.state = "fence"
  return true
}

function stateFenceClose(m: Machine): boolean {
  // ```markdown
  //   | ```js
  // > | ```
  //     ^ same character, at least as long, then only whitespace
  // ```
  const len = m.buf.length
  let i = m.pos
  while (i < len && m.buf.charCodeAt(i) === m.fenceChar) {
    m.closeRun++
    i++
  }
  m.pos = i
  if (i === len) return false
  m.state = m.closeRun >= m.fenceLen ? "fence-close-tail" : "fence"
  return true
}

function stateFenceCloseTail(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  while (
    i < len &&
    (m.buf.charCodeAt(i) === SPACE || m.buf.charCodeAt(i) === TAB || m.buf.charCodeAt(i) === CR)
  )
    i++
  m.pos = i
  if (i === len) return false
  if (m.buf.charCodeAt(i) === LF) {
    m.fenceChar = 0
    m.runs = []
    m.codeUntil = -1
    m.lineIndent = 0
    m.pos = i + 1
    m.state = "line-start"
  } else m.state = "fence"
  return true
}

function stateMarkup(m: Machine): boolean {
  const kind = m.draft!.body.spec.kind
  switch (kind) {
    case "tags":
      return stateTags(m)
    case "json":
      return stateJson(m)
    case "pythonic":
      return statePythonic(m)
    default:
      return kind satisfies never
  }
}

function stateTags(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const len = m.buf.length
  const trigger = body.entries.trigger
  const closing = d.block !== undefined && m.reasoning !== undefined ? m.reasoning.close.trigger : undefined
  let i = m.pos
  for (;;) {
    if (closing === undefined) i = skipPlain(m.buf, i, body.scan)
    else {
      for (; i < len; i++) {
        const c = m.buf.charCodeAt(i)
        if (c < 128 && (trigger[c] !== 0 || closing[c] !== 0)) break
      }
    }
    m.pos = i
    if (i >= len) return false
    if (closing !== undefined) {
      const r = matchClose(m, m.reasoning!.close, i)
      if (r === MORE) return false
      if (r >= 0) {
        endMarkup(m, false)
        return true
      }
    }
    const r = matchBody(m, body.entries, i)
    if (r === MORE) return false
    if (r === FAIL) {
      i++
      continue
    }
    const entry = m.hitEntry!
    switch (entry.role) {
      case "closer":
        d.closing = true
        m.pos = r
        endMarkup(m, true)
        return true
      case "call":
        d.calls.push({ name: m.hitName, start: m.base + i, structured: d.row.structured, args: false })
        break
      case "structure": {
        const c = currentCall(m)
        if (c !== undefined) c.structured = true
        break
      }
      case "call-end": {
        const c = currentCall(m)
        if (c !== undefined) c.structured = true
        if (body.spec.kind === "tags" && body.spec.bare !== undefined) {
          m.pos = r
          m.state = "markup-tail"
          m.tail = "bare"
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

function stateJson(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const names = body.spec.kind === "json" ? body.spec.names : "none"
  const len = m.buf.length
  const inString = body.stringTrigger
  const inValue = body.valueTrigger
  const closing = d.block !== undefined && m.reasoning !== undefined ? m.reasoning.close.trigger : undefined
  let i = m.pos
  while (i < len) {
    if (m.jString) {
      if (m.jEscape) {
        m.jEscape = false
        i++
        continue
      }
      let c = 0
      for (; i < len; i++) {
        c = m.buf.charCodeAt(i)
        if (c < 128 && (inString[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
      }
      if (i >= len) break
      if (c === BACKSLASH) m.jEscape = true
      else if (c === QUOTE) m.jString = false
      else {
        m.pos = i
        const r = closerAt(m, i)
        if (r === MORE) return false
        if (r === 1) return true
      }
      i++
      continue
    }
    let c = 0
    for (; i < len; i++) {
      c = m.buf.charCodeAt(i)
      if (c < 128 && (inValue[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
    }
    if (i >= len) break
    switch (c) {
      case QUOTE: {
        if (
          names !== "none" &&
          m.jInCall &&
          m.jDepth === m.jCallDepth &&
          (m.jExpect === 1 || (m.jExpect === 2 && m.jNameNext))
        ) {
          const end = captureString(m, i)
          if (end === MORE) {
            m.pos = i
            return false
          }
          if (end >= 0) {
            onJsonString(m, m.buf.slice(i + 1, end), names)
            i = end + 1
            continue
          }
        }
        m.jString = true
        break
      }
      case LBRACE:
      case LBRACKET:
        m.jDepth++
        m.jNameNext = false
        if (m.jDepth === 1 && m.jCallDepth === 0) m.jCallDepth = c === LBRACE ? 1 : 2
        if (c === LBRACE && m.jDepth === m.jCallDepth && names !== "none") {
          d.calls.push({ name: undefined, start: m.base + i, structured: false, args: false })
          m.jInCall = true
          m.jExpect = 1
        }
        break
      case RBRACE:
      case RBRACKET:
        if (c === RBRACE && m.jInCall && m.jDepth === m.jCallDepth) {
          const call = currentCall(m)
          if (call?.name !== undefined) call.structured = true
          m.jInCall = false
        }
        m.jDepth--
        if (m.jDepth <= 0) {
          m.pos = i + 1
          m.state = "markup-tail"
          m.tail = "value-after"
          return true
        }
        break
      case COMMA:
        if (m.jInCall && m.jDepth === m.jCallDepth) {
          m.jExpect = 1
          m.jNameNext = false
        }
        break
      case COLON:
        if (m.jInCall && m.jDepth === m.jCallDepth) m.jExpect = 2
        break
      default: {
        m.pos = i
        const r = closerAt(m, i)
        if (r === MORE) return false
        if (r === 1) return true
      }
    }
    i++
  }
  m.pos = len
  return false
}

/** The end quote of a short escape-free string at `i`, {@link MORE}, or FAIL (not a name). */
function captureString(m: Machine, i: number): number {
  const span = Math.min(MAX_NAME + 2, m.maxHold)
  const limit = Math.min(m.buf.length, i + span)
  const fin = m.final || i + span <= m.buf.length
  for (let j = i + 1; j < limit; j++) {
    const c = m.buf.charCodeAt(j)
    if (c === QUOTE) return j
    if (c === BACKSLASH) return FAIL
  }
  return fin ? FAIL : MORE
}

function onJsonString(m: Machine, s: string, names: "keys" | "first-key" | "none"): void {
  const call = currentCall(m)
  if (call === undefined) return
  if (m.jExpect === 1) {
    if (names === "first-key") {
      if (call.name === undefined) {
        call.name = normalize(m, s)
        call.structured = true
      }
    } else if (s === "name" || s === "tool_name") m.jNameNext = true
    else if (s === "arguments" || s === "parameters") {
      call.args = true
      if (call.name !== undefined) call.structured = true
    }
    m.jExpect = 0
  } else {
    if (call.name === undefined) call.name = normalize(m, s)
    if (call.args) call.structured = true
    m.jNameNext = false
    m.jExpect = 0
  }
}

function statePythonic(m: Machine): boolean {
  const d = m.draft!
  const spec = d.body.spec
  const lines = spec.kind === "pythonic" && spec.lines
  const callDepth = lines ? 0 : 1
  const trigger = d.body.valueTrigger
  const closing = d.block !== undefined && m.reasoning !== undefined ? m.reasoning.close.trigger : undefined
  const len = m.buf.length
  let i = m.pos
  while (i < len) {
    const c = m.buf.charCodeAt(i)
    if (m.jString) {
      if (m.jEscape) m.jEscape = false
      else if (c === BACKSLASH) m.jEscape = true
      else if (c === m.jExpect) m.jString = false
      i++
      continue
    }
    if (m.jDepth === callDepth && isIdentStart(c)) {
      const limit = Math.min(len, i + Math.min(MAX_NAME, m.maxHold))
      let j = i + 1
      while (j < limit && isIdentPart(m.buf.charCodeAt(j))) j++
      if (j === limit && !(m.final || i + Math.min(MAX_NAME, m.maxHold) <= len)) {
        m.pos = i
        return false
      }
      if (j < len && m.buf.charCodeAt(j) === LPAREN) {
        let fn = m.buf.slice(i, j)
        if (fn.endsWith(".call")) fn = fn.slice(0, -5) // Llama 3.1 built-ins: `brave_search.call(`
        d.calls.push({ name: normalize(m, fn), start: m.base + i, structured: false, args: false })
        m.jDepth++
        i = j + 1
        continue
      }
      i = j
      continue
    }
    if (c === QUOTE || c === APOSTROPHE) {
      m.jString = true
      m.jExpect = c
    } else if (c === LPAREN || c === LBRACKET || c === LBRACE) m.jDepth++
    else if (c === RPAREN || c === RBRACKET || c === RBRACE) {
      m.jDepth--
      if (c === RPAREN && m.jDepth === callDepth) {
        const call = currentCall(m)
        if (call !== undefined) call.structured = true
      }
      if (!lines && m.jDepth <= 0) {
        m.pos = i + 1
        m.state = "markup-tail"
        m.tail = "value-after"
        return true
      }
    } else if (c < 128 && (trigger[c] !== 0 || (closing !== undefined && closing[c] !== 0))) {
      m.pos = i
      const r = closerAt(m, i)
      if (r === MORE) return false
      if (r === 1) return true
    }
    i++
  }
  m.pos = len
  return false
}

function stateMarkupTail(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const limit = limitAt(m, m.pos)
  const fin = finalAt(m, m.pos)
  if (m.tail === "bare") {
    if (body.tail !== undefined) {
      const r = match(body.tail, m.buf, m.pos, limit, fin, m.capture)
      if (r === MORE) return false
      if (r >= 0) {
        d.closing = true
        m.pos = r
      }
    }
    endMarkup(m, true)
    return true
  }
  if (body.closer !== undefined) {
    const r = match(body.closer, m.buf, m.pos, limit, fin, m.capture)
    if (r === MORE) return false
    if (r >= 0) {
      d.closing = true
      m.pos = r
      endMarkup(m, true)
      return true
    }
  }
  const json = body.spec.kind === "json"
  if (m.tail === "value-start" || (json && body.closer !== undefined)) {
    const r = match(VALUE_START, m.buf, m.pos, limit, fin, m.capture)
    if (r === MORE) return false
    if (r >= 0) {
      // A header that named the tool (`to=functions.NAME`, `NAME[ARGS]`) followed by its arguments.
      const call = currentCall(m)
      if (call !== undefined && body.spec.kind === "json" && body.spec.names === "none")
        call.structured = true
      m.pos = r
      resetValue(m)
      m.state = "markup"
      return true
    }
  }
  if (m.tail === "value-start" && m.final && cutBeforePayload(m)) {
    // The stream ended between a call's header and its payload: the call is truncated.
    m.pos = m.buf.length
    endMarkup(m, false)
    return true
  }
  if (m.tail === "value-after" && json) {
    // Llama 3.x separates calls with `;`; MiniMax M1 writes one object per line.
    const r = match(SEPARATOR, m.buf, m.pos, limit, fin, m.capture)
    if (r === MORE) return false
    if (r >= 0) {
      const next = match(NEXT_VALUE, m.buf, r, limitAt(m, r), finalAt(m, r), m.capture)
      if (next === MORE) return false
      if (next >= 0) {
        m.pos = next
        resetValue(m)
        m.state = "markup"
        return true
      }
    }
  }
  endMarkup(m, true)
  return true
}

/** At the end of the stream: is the rest after `pos` blank, or a cut-off payload introducer? */
function cutBeforePayload(m: Machine): boolean {
  let i = m.pos
  while (i < m.buf.length && isSpace(m.buf.charCodeAt(i))) i++
  const rest = m.buf.slice(i)
  return rest === "" || PAYLOAD_INTRODUCERS.some((p) => p.startsWith(rest))
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
      case "fence-info":
        more = stateFenceInfo(m)
        break
      case "fence":
        more = stateFence(m)
        break
      case "fence-line-start":
        more = stateFenceLineStart(m)
        break
      case "fence-close":
        more = stateFenceClose(m)
        break
      case "fence-close-tail":
        more = stateFenceCloseTail(m)
        break
      case "code-check":
        more = stateCodeCheck(m)
        break
      case "markup":
        more = stateMarkup(m)
        break
      case "markup-tail":
        more = stateMarkupTail(m)
        break
      default:
        m.state satisfies never
        return
    }
    if (!more) return
  }
}

function visible(m: Machine): boolean {
  return m.draft === undefined
}

/** Releases what the states decided, drops the decided prefix, and returns the result. */
function settle(m: Machine): DetectorResult {
  if (visible(m)) release(m, m.pos)
  else m.textFrom = m.pos
  if (m.pos > 0) {
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
  if (!m.final && text.length > 0) {
    // Never release half a surrogate pair: hold a trailing high surrogate until its pair arrives.
    const last = text.charCodeAt(text.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) {
      m.highHeld = text.slice(-1)
      text = text.slice(0, -1)
    }
  }
  if (m.found.length === 0) return { text, markup: NO_MARKUP }
  const markup = m.found
  m.found = []
  return { text, markup }
}

function pushDelta(m: Machine, delta: string): DetectorResult {
  if (typeof delta !== "string") throw new TypeError("tool-rescue: push(delta) expects a string")
  if (m.ended) throw new TypeError("tool-rescue: push() after end(); call reset() to reuse the detector")
  if (delta.length === 0) return settle(m)
  if (
    m.buf.length === 0 &&
    m.state === "text" &&
    !m.anchor &&
    m.unanswered.length === 0 &&
    m.highHeld.length === 0
  ) {
    // Fast path: nothing held, plain prose, and no character in the delta can start anything.
    const len = delta.length
    const i = skipPlain(delta, 0, m.reasoning === undefined ? m.tables.textScan : m.reasoning.textScan)
    const last = delta.charCodeAt(len - 1)
    if (i === len && !(last >= 0xd800 && last <= 0xdbff)) {
      m.base += len
      m.prevCode = last
      return m.found.length === 0 ? { text: delta, markup: NO_MARKUP } : settleWith(m, delta)
    }
  }
  if (
    m.buf.length === 0 &&
    m.state === "markup" &&
    m.draft!.body.spec.kind === "tags" &&
    m.draft!.block === undefined
  ) {
    // Fast path inside a call (a long parameter value): no character of the delta can start a body literal.
    const len = delta.length
    if (skipPlain(delta, 0, m.draft!.body.scan) === len) {
      m.base += len
      m.prevCode = delta.charCodeAt(len - 1)
      return m.found.length === 0 ? { text: "", markup: NO_MARKUP } : settleWith(m, "")
    }
  }
  // `settle` left only the undecided tail in `buf`: appending never copies decided text.
  m.buf += delta
  run(m)
  return settle(m)
}

function settleWith(m: Machine, text: string): DetectorResult {
  const markup = m.found
  m.found = []
  return { text, markup }
}

function endStream(m: Machine): DetectorResult {
  if (m.ended) return { text: "", markup: NO_MARKUP }
  m.final = true
  run(m)
  if (m.draft !== undefined) {
    m.pos = m.buf.length
    endMarkup(m, false)
  } else if (m.pos < m.buf.length) {
    // Unreachable by design (every state decides at the end); kept so no input is ever lost.
    m.pos = m.buf.length
  }
  m.ended = true
  flushQueue(m)
  return settle(m)
}

function heldCount(m: Machine): number {
  return m.buf.length - m.pos + m.highHeld.length
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 46
}
