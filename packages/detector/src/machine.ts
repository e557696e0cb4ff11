/**
 * The detector's state and the shapes it works with.
 *
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
import { CR, LF, SPACE, TAB } from "./char-codes.ts"
import {
  type CompiledBody,
  type CompiledReasoning,
  type LiteralIndex,
  type Tables,
  type TrieNode,
  textScanFor,
} from "./compile.ts"
import type { FormatId } from "./format-ids.ts"
import type { OpenerRow } from "./format-table.ts"
import type { Capture, Pattern } from "./pattern.ts"
import type { RunMemo } from "./run-memo.ts"
import type { Scanner, SearchMemo } from "./skip-plain.ts"
import type { Markup } from "./types.ts"

/** Space, tab or CR: what may stand on a blank line or after a closing fence without ending it. */
export function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR
}

/** Longest key or name string captured from a JSON payload. */
export const MAX_NAME = 256
/** Open inline-code runs remembered per paragraph (more distinct run lengths than this are literal). */
export const MAX_RUNS = 16

/** The states of the machine. */
export type State =
  /** At the start of a line: indentation, then a fence, a line-anchored opener, or text. */
  | "line-start"
  /** Prose: skip to the next trigger character. */
  | "text"
  /** Counting a backtick or tilde run at the start of a line: three or more open a fence. */
  | "fence-open"
  /** Counting a backtick run in prose: an inline code run. */
  | "inline-run"
  /** After an opening backtick fence run: the info string decides whether it is a fence. */
  | "fence-info"
  /** Inside a fenced code block, mid-line. */
  | "fence"
  /** At the start of a line inside a fenced code block. */
  | "fence-line-start"
  /** At the start of a line inside a fenced code block or an HTML block in a blockquote: reading the quote's markers. */
  | "code-quote"
  /** Counting a possible closing fence run. */
  | "fence-close"
  /** Inside a line of an indented code block (CommonMark §4.4). */
  | "indented-code"
  /** Inside an HTML block of kind 1 (`<pre>`, `<code>`, `<script>`, `<style>`, `<textarea>`; §4.6). */
  | "html-block"
  /** At the start of a line inside an HTML block in a list item: its indentation decides whether the block goes on. */
  | "html-line-start"
  /** After a closing fence run: only spaces or tabs may follow on the line. */
  | "fence-close-tail"
  /** A marker inside a possible inline code span: looking for a closing run before deciding. */
  | "code-check"
  /** Inside a call written in literal tags (withheld): `markup-tags.ts`. */
  | "markup-tags"
  /** Inside a call's JSON payload (withheld): `markup-json.ts`. */
  | "markup-json"
  /** Inside Python call syntax (withheld): `markup-pythonic.ts`. */
  | "markup-pythonic"
  /** Between the parts of a tool call: an optional trailing closer, another value, or the end. */
  | "markup-tail"

/** What `markup-tail` is waiting for. */
export type Tail =
  /** Before a JSON payload: a value, a closer, or nothing (the header was the whole call). */
  | "value-start"
  /** After a JSON or pythonic value: a closer, another value (inside an envelope), or the end. */
  | "value-after"
  /**
   * After a bare call's own close (`</function>`): an orphan envelope closer, or the end. After an
   * envelope's closer: a stray repeat of it (`</tool_call>\n</tool_call>`), or the end.
   */
  | "bare"

/** Where a scan of a JSON or Python value is, lexically. */
export type Lex =
  /** Outside strings. */
  | "code"
  /** Inside a string. */
  | "string"
  /** Right after a backslash inside a string. */
  | "escape"

/** What a JSON call object expects next at its own depth: a key, a value, or neither (inside one). */
export type Expect = "none" | "key" | "value"

/** A reasoning block. */
export interface Block {
  /** Visible non-whitespace text came after the block closed. */
  answered: boolean
  /** The block holds markup (so its answer matters). */
  marked: boolean
}

/** One call inside open markup. */
export interface Call {
  name: string | undefined
  start: number
  structured: boolean
  args: boolean
}

/** Open markup. */
export interface Draft {
  readonly row: OpenerRow
  readonly body: CompiledBody
  readonly start: number
  readonly block: Block | undefined
  readonly calls: Call[]
  closing: boolean
  /** The row's format, unless an orphan closer told another one apart (`</minimax:tool_call>`). */
  format: FormatId
  // --- the lexical state of its body (JSON and pythonic values, what `markup-tail` waits for) ---
  /** What `markup-tail` waits for. */
  tail: Tail
  /** JSON/pythonic nesting depth. */
  jDepth: number
  /** Depth of call objects (1: top-level object, 2: objects in a top-level list). */
  jCallDepth: number
  /** Outside strings, inside one, or right after a backslash inside one (JSON and pythonic). */
  jLex: Lex
  /** Pythonic: the quote that opened the current string. */
  jQuote: number
  /** JSON: what the call object expects next at its own depth. */
  jExpect: Expect
  /** The next JSON string value is the call's name. */
  jNameNext: boolean
  /**
   * The key just read was `"function"` (or `"tool_call"`) of a call object with no name yet: an
   * object value is the call object itself, one level down (OpenAI's shape of a call).
   */
  jWrapNext: boolean
  /** Inside a call object. */
  jInCall: boolean
}

/**
 * A literal walk cut off by the end of the input (the next push resumes it, not reads it again):
 * the index walked, the stream offsets it started at and reached, and the trie node it reached.
 */
export interface Walk {
  index: LiteralIndex<unknown>
  at: number
  to: number
  node: TrieNode<unknown>
}

/**
 * A tag whose XML prefix the end of the input cut off (`<https`, `</div`: `matchNamespaced` read
 * only prefix characters, after a literal walk that had failed): the index, where the tag and its
 * prefix start, and where the input ended (stream offsets). The next push reads on from there.
 */
export interface TagCut {
  index: LiteralIndex<unknown>
  at: number
  from: number
  to: number
}

/** Decided markup waiting for its reasoning block's answer (reported in stream order). */
export interface Queued {
  readonly markup: Omit<Markup, "answerFollows">
  readonly block: Block | undefined
}

export const NO_MARKUP: readonly Markup[] = Object.freeze([])
export const NO_SPANS: readonly number[] = Object.freeze([])
/** No open inline-code run (shared: a detector makes its own list when a run opens). */
export const NO_RUNS: readonly number[] = Object.freeze([])
/** An open code block that is not in a blockquote (`blockQuote`). */
export const NO_QUOTE: readonly number[] = Object.freeze([])

/**
 * The state of one detector (one object per detector; the code that works on it is shared). It is
 * its own pattern capture (`captured`, the run memo) and search memo: an idle detector is this one
 * object, and what only some streams need (the run memo, the searches, the lists of markup and
 * reasoning blocks, an open call's lexical state) is made when first needed.
 */
export interface Machine extends Capture, SearchMemo {
  // --- options (fixed for the detector's life) -------------------------------------------------
  /** Tools offered this turn (a few names: an array is a fraction of a set's size; see {@link offers}). */
  readonly tools: readonly string[]
  /** Some offered tool's name has a space in it (`get weather`): only then do `offeredOnly` rows run. */
  readonly spacedTools: boolean
  /** Compiled literal tables, shared by detectors with the same formats. */
  readonly tables: Tables
  /** Cap on an undecided candidate (at least the longest literal). */
  readonly maxHold: number
  /** What prose outside reasoning is scanned with: the tables' scanner, narrowed for the tools (`textScanFor`). */
  readonly textScan: Scanner
  // --- reads cut off by the end of a push: resumed on the next one, not repeated --------------
  /** The last literal walk cut off by the end of the input (made on the first; then reused). */
  walk: Walk | undefined
  /** The last tag prefix cut off by the end of the input (made on the first; then reused). */
  tag: TagCut | undefined
  /**
   * Where the input ended when a prose marker's confirm last stopped inside a run there (`cutRun`:
   * a name or whitespace cut off, `[functo`), or -1: a push that only extends the run is held
   * without running the machine (`runGoesOn`).
   */
  cutEnd: number
  /** Where patterns store a captured name (`Capture`). */
  captured: string | undefined
  /** The run the last answer of MORE stopped in, and its start (`Capture`). */
  cutRun: Pattern | undefined
  cutFrom: number
  /** The runs patterns and scans read (`Capture`; made on the first run worth noting). */
  runMemo: RunMemo | undefined
  /** The text of this push's far searches, and the searches (`SearchMemo`; dropped when the push is settled). */
  searchedText: string
  byChars: SearchMemo["byChars"]
  // --- the input window: what arrived and is undecided, and where the scan is ------------------
  /**
   * The scanner of the next push's fast path, or `undefined` when it cannot take it (set at the end
   * of every push that may change what allows it: `create-detector.ts` `quickScanner`).
   */
  quick: Scanner | undefined
  /**
   * The body scanner of the next push's in-call fast path (a call's body, nothing held, no block
   * waiting), or `undefined`; set with `quick`.
   */
  callQuick: Scanner | undefined
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
  /**
   * The character before that one (a blank CR LF line that straddles a push): read only when
   * `prevCode` is a CR, so a push that releases text as it came writes it only then.
   */
  prevCode2: number
  /** `end()` is running: windows end at the input's end. */
  final: boolean
  /** `end()` has run. */
  ended: boolean
  // --- the state (one named state at a time) ---------------------------------------------------
  /** The current state. */
  state: State
  // --- what this push or end() returns, and what waits to be reported --------------------------
  /** Visible text released during this call. Several pieces are joined with `+`, which V8 keeps as a rope until read: linear, and cheaper here than an array. */
  out: string
  /**
   * Absolute offset one past the last character released by `release` (read by `settle` in the same
   * call only: a push that releases text as it came does not write it).
   */
  outEnd: number
  /** Markup reported by this call (none yet: undefined). */
  found: Markup[] | undefined
  /** Stream offsets withheld during this call, as `[start, end)` pairs in order (none yet: undefined). */
  withheld: number[] | undefined
  /** Decided markup waiting, in stream order, for a reasoning block's answer. */
  queue: Queued[] | undefined
  /** Closed reasoning blocks with markup, waiting for a visible answer (none: undefined). */
  unanswered: Block[] | undefined
  /** A trailing high surrogate held until its pair arrives. */
  highHeld: string
  // --- Markdown: line starts, fences, indented code, HTML blocks, inline code ------------------
  /** Spaces at the start of the current line. */
  lineIndent: number
  /** The open fence's character (0: no fence). */
  fenceChar: number
  /** The open fence's run length (also: a would-be fence's run while its info string is read). */
  fenceLen: number
  /** Length of a possible closing fence run so far. */
  closeRun: number
  /**
   * The blockquote markers (`>`) the open fence's or HTML block's lines start with, outermost first:
   * for each, the columns of indentation it may stand after (empty: the block is not quoted).
   */
  blockQuote: readonly number[]
  /** A paragraph is open: an indented line continues it instead of starting code (CommonMark §4.4). */
  para: boolean
  /** The blockquote depth of the open paragraph (a quoted line as deep or shallower continues it, §5.1). */
  paraQuote: number
  /** Content column of the list item open in a blockquote, in the quote (0: none): its indented code needs four more. */
  quoteList: number
  /** The blockquote depth whose content `quoteList` counts from (`> > - a`: 2). */
  quoteListDepth: number
  /** Content column of the open list item (0: none): its indented code needs four more (§5.2). */
  listIndent: number
  /**
   * Content columns of the list items the open one is nested in, outermost first (made when an item
   * first nests in another; read only while `listIndent` is not 0): a line that ends the open item
   * is read against the item it is in.
   */
  lists: number[] | undefined
  /** The open list item's content column outside the blockquote whose fence or HTML block is open (0: none). */
  quoteOuter: number
  /** The closing tag of the open HTML block (lower case, `</pre>`), or `""`. */
  htmlClose: string
  /** The open HTML block's closing tag was seen on the current line: the block ends with it. */
  htmlDone: boolean
  /** Open inline-code runs of this paragraph (candidates that may still close); `addRun` makes the list. */
  runs: readonly number[]
  /** The character of the run being counted (`fence-open`, `inline-run`). */
  runChar: number
  /** Its length so far. */
  runLen: number
  /** Absolute offset of a closing run found ahead: markers before it are inside code. */
  codeUntil: number
  /** Absolute offset of the marker whose code span is being checked. */
  checkStart: number
  /** Absolute offset the code-span check resumes at. */
  checkPos: number
  /** Where the code-span check returns: prose, or a line start (a line-anchored opener, `Action:`). */
  checkReturn: "text" | "line-start"
  // --- reasoning blocks and start-anchored formats ---------------------------------------------
  /** Start-anchored formats may still start (start of response, or right after reasoning). */
  anchor: boolean
  /**
   * No reasoning marker yet: the response may be inside a reasoning block its chat template opened
   * in the prompt, and a closer with no opener (`Start` of kind `reasoning-end`) ends it. The first
   * reasoning opener or closer decides.
   */
  templateReasoning: boolean
  /** The open reasoning block's row. */
  reasoning: CompiledReasoning | undefined
  /** The open reasoning block. */
  block: Block | undefined
  // --- the open call: its draft and the lexical state of its body ------------------------------
  /** Open markup, with its body's lexical state. */
  draft: Draft | undefined
}

/** A fresh machine: `createDetector` makes one, `reset()` replaces it with another. */
export function createMachine(tools: readonly string[], tables: Tables, maxHold: number): Machine {
  return {
    tools,
    spacedTools: tools.some((tool) => tool.includes(" ")),
    tables,
    maxHold,
    textScan: textScanFor(tables, tools),
    walk: undefined,
    tag: undefined,
    cutEnd: -1,
    captured: undefined,
    cutRun: undefined,
    cutFrom: -1,
    runMemo: undefined,
    searchedText: "",
    byChars: undefined,
    quick: undefined,
    callQuick: undefined,
    buf: "",
    base: 0,
    pos: 0,
    textFrom: 0,
    prevCode: LF,
    prevCode2: LF,
    final: false,
    ended: false,
    state: "line-start",
    out: "",
    outEnd: 0,
    found: undefined,
    withheld: undefined,
    queue: undefined,
    unanswered: undefined,
    highHeld: "",
    lineIndent: 0,
    fenceChar: 0,
    fenceLen: 0,
    closeRun: 0,
    blockQuote: NO_QUOTE,
    para: false,
    paraQuote: 0,
    quoteList: 0,
    quoteListDepth: 0,
    listIndent: 0,
    lists: undefined,
    quoteOuter: 0,
    htmlClose: "",
    htmlDone: false,
    runs: NO_RUNS,
    runChar: 0,
    runLen: 0,
    codeUntil: -1,
    checkStart: 0,
    checkPos: 0,
    checkReturn: "text",
    anchor: true,
    templateReasoning: true,
    reasoning: undefined,
    block: undefined,
    draft: undefined,
  }
}

/** Is `name` a tool offered this turn? */
export function offers(m: Machine, name: string): boolean {
  return m.tools.includes(name)
}

/**
 * The paragraph ends for inline code (a blank line, a fence, a reasoning block or a call starts or
 * ends): its open backtick runs can no longer close, so they stay literal text (CommonMark §6.1).
 */
export function dropRuns(m: Machine): void {
  if (m.runs !== NO_RUNS) m.runs = NO_RUNS
  m.codeUntil = -1
}

/** The open call's value state back to its start (before its payload, or the next value). */
export function resetValue(d: Draft): void {
  d.jDepth = d.jCallDepth = d.jQuote = 0
  d.jLex = "code"
  d.jExpect = "none"
  d.jNameNext = d.jWrapNext = d.jInCall = false
}
