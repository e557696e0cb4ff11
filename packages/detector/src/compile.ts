/**
 * Compiles the format rows enabled by the options into lookup tables: which characters can start
 * something (a 128-entry trigger table, so plain text is skipped one `charCodeAt` at a time), and,
 * per first character, the literals that start there, longest first.
 *
 * Tables are immutable and shared, and nothing module-wide is a cache: the default formats' tables
 * are one value; the tables of a `formats` array are owned by the caller's array (see
 * {@link tablesFor}). Detectors built from the same options share one compiled set, which keeps an
 * idle detector small.
 */

import { APOSTROPHE, BACKSLASH, LF, QUOTE } from "./char-codes.ts"
import type { FormatId } from "./format-ids.ts"
import {
  type BodyEntry,
  type BodySpec,
  OPENER_ROWS,
  type OpenerRow,
  REASONING_ROWS,
  type ReasoningClose,
  type ReasoningRow,
  TOKEN_ROWS,
  TOOL,
} from "./format-table.ts"
import { alt, inClass, lit, nsLit, type Pattern, peek, seq, ws } from "./pattern.ts"
import { makeScanner, type NsTags, type Scanner } from "./skip-plain.ts"

/** What starts at a literal: markup, a reasoning block, or the answer after a block the chat template opened. */
export type Start =
  | { readonly kind: "markup"; readonly row: OpenerRow }
  | { readonly kind: "reasoning"; readonly row: CompiledReasoning }
  /**
   * A reasoning closer with no block open: a chat template that writes the opener into the prompt
   * (Qwen3-Thinking-2507, MiniMax-M2, HyperCLOVAX-SEED-Think, DeepSeek-R1) leaves the output as
   * `reasoning…</think>\n\nanswer`. `confirm` follows the closer: a tag prose names needs its line
   * to end there (see {@link templateEnds}).
   */
  | { readonly kind: "reasoning-end"; readonly confirm: Pattern }

/** A literal and everything it may start, in priority order. */
export interface LiteralEntry<T> {
  readonly literal: string
  readonly items: readonly T[]
}

/**
 * A node of a literal trie: the path from the root spells a prefix of one or more literals. A
 * match walks down once along the input (one step per character, however many literals share the
 * prefix: `<|tool…` starts dozens), then back up through `parent` for the literals that ended on
 * the way, longest first.
 */
export interface TrieNode<T> {
  /** The literal that ends here, with what it may start. */
  readonly entry: LiteralEntry<T> | undefined
  /** The node one character shorter (`undefined` for a first character). */
  readonly parent: TrieNode<T> | undefined
  /**
   * This node if a literal ends here, else the nearest node above it where one does: a failed
   * walk goes back up through the literals on its way only (`hit`, then `parent.hit`, …), not
   * through every character of a long prefix.
   */
  readonly hit: TrieNode<T> | undefined
  /** The characters that continue a literal from here, and their nodes (same order). */
  readonly codes: readonly number[]
  readonly kids: readonly TrieNode<T>[]
  /** For a node with many kids (`<` starts dozens of literals): its ASCII kids by character. */
  readonly ascii: readonly (TrieNode<T> | undefined)[] | undefined
  /**
   * With `ascii`: the non-ASCII characters among `codes` and their nodes, so that `<｜` is not
   * looked for among the dozens of ASCII kids of `<`.
   */
  readonly wideCodes: readonly number[]
  readonly wideKids: readonly TrieNode<T>[]
}

/** Literals indexed by their characters. */
export interface LiteralIndex<T> {
  /** The trie's first level, by first character: the literals that start with an ASCII one. */
  readonly firsts: readonly (TrieNode<T> | undefined)[]
  /**
   * The literals that start with a non-ASCII character (`‹｜DSML｜…`, a special token's `<` written
   * as U+2039): few, and read only where the scan stops at one (see `Scanner.wideFirsts`).
   */
  readonly wideFirsts: ReadonlyMap<number, TrieNode<T>>
  /** 1 where some literal starts with the (ASCII) character. */
  readonly trigger: Uint8Array
  /** Literals that also match with an XML namespace prefix (`<x:invoke`), longest first. */
  readonly ns: readonly LiteralEntry<T>[]
}

/** A reasoning row with its closers indexed. */
export interface CompiledReasoning {
  readonly row: ReasoningRow
  readonly close: LiteralIndex<ReasoningClose>
  /** Prose inside the block: the text triggers plus the closers' first characters. */
  readonly textScan: Scanner
  /** Fence content: only line feeds and the closers' first characters matter. */
  readonly fenceTrigger: Uint8Array
}

/** A body with its literals indexed. */
export interface CompiledBody {
  readonly spec: BodySpec
  /** The body's longest literal (part of the hold-back floor). */
  readonly longest: number
  /** The state that reads the body. */
  readonly state: "markup-tags" | "markup-json" | "markup-pythonic"
  readonly entries: LiteralIndex<BodyEntry>
  /** Skipping to the next literal of the body. */
  readonly scan: Scanner
  /** json/pythonic: `ws closer` (closing the envelope) */
  readonly closer: Pattern | undefined
  /** json/pythonic: a payload that ends the stream leaves the envelope open (its closer is due). */
  readonly closerDue: boolean
  /** bare tags: `ws tail`, each with the format it tells (if it does) */
  readonly tails: readonly CompiledTail[]
  /** json: characters that matter inside a string (quote, backslash, closers' first characters). */
  readonly stringTrigger: Uint8Array
  /** json/pythonic: characters that matter outside strings. */
  readonly valueTrigger: Uint8Array
}

/** A bare call's orphan closer: `ws literal`. */
export interface CompiledTail {
  readonly pattern: Pattern
  readonly format: FormatId | undefined
}

/** Everything a detector needs, for one set of enabled formats. */
export interface Tables {
  readonly text: LiteralIndex<Start>
  readonly textScan: Scanner
  readonly anchor: LiteralIndex<Start>
  readonly line: LiteralIndex<Start>
  /** 1 where a character at a line's start sends the scan to `line-start` (after a line feed). */
  readonly lineStart: Uint8Array
  readonly bodies: ReadonlyMap<OpenerRow, CompiledBody>
  /**
   * Gated rows whose confirm opens with the only name it captures, after optional whitespace
   * (`[NAME(`): with tools offered, such a row fails as soon as that name cannot spell one of them
   * (see `confirmRow`), before its grammar runs.
   */
  readonly nameFirst: ReadonlySet<OpenerRow>
  /**
   * How {@link textScanFor} narrows the prose scan for the offered tools: the scan's other
   * literals, and the one-character openers of {@link nameFirst} rows with their followers.
   */
  readonly narrowing: Narrowing | undefined
  /** The longest literal: the hold-back floor. */
  readonly longest: number
}

/** See {@link Tables.narrowing}. */
interface Narrowing {
  readonly literals: readonly string[]
  readonly gated: readonly (readonly [literal: string, follows: string])[]
  readonly lineStarts: readonly number[]
  /** The first letters of a bare name at a line's start (`bareName` line rows): a line stop where an offered name starts so. */
  readonly nameLines: string
  readonly ns: NsTags
  /**
   * The narrowed scanners made so far, by the offered names' first characters (a memo of values
   * derived from these tables alone, bounded by {@link NARROWED}).
   */
  readonly byFirsts: Map<string, Scanner>
}

/** A trie node under construction. */
interface Building<T> {
  entry: { readonly literal: string; items: T[] } | undefined
  readonly parent: Building<T> | undefined
  hit: Building<T> | undefined
  codes: number[]
  kids: Building<T>[]
  ascii: (Building<T> | undefined)[] | undefined
  wideCodes: readonly number[]
  wideKids: readonly Building<T>[]
}

/** Kids looked up by a linear scan up to this many; a node with more gets an ASCII table. */
const NARROW = 6

/** The kids of a leaf, and the non-ASCII kids of a node without an ASCII table (shared: never written). */
const NO_CODES: readonly number[] = []
const NO_KIDS: readonly never[] = []

/**
 * Gives every wide node of the trie under `node` its ASCII table, and every node its `hit`; and
 * trims its arrays to their length. An array grown by `push` keeps room for 16 more elements (V8
 * grows a backing store by half plus 16): two such arrays per node were most of the tables' heap
 * (thousands of nodes, most with one kid). A leaf shares the empty arrays, and nodes whose kids
 * spell the same characters share one `codes` array (`codes`: the trie's, by their characters;
 * most hold one, and a few dozen characters spell thousands of nodes' literals).
 */
function indexWide<T>(node: Building<T>, codes: Map<string, number[]>): void {
  node.hit = node.entry !== undefined ? node : node.parent?.hit
  if (node.entry !== undefined && node.entry.items.length > 1) node.entry.items = node.entry.items.slice()
  node.codes = node.codes.length === 0 ? (NO_CODES as number[]) : sharedCodes(node.codes, codes)
  node.kids = node.kids.length === 0 ? (NO_KIDS as never[]) : node.kids.slice()
  if (node.kids.length > NARROW) {
    node.ascii = new Array(128).fill(undefined)
    node.codes.forEach((c, k) => {
      if (c < 128) node.ascii![c] = node.kids[k]
    })
    node.wideCodes = node.codes.filter((c) => c >= 128)
    node.wideKids = node.kids.filter((_, k) => node.codes[k]! >= 128)
  }
  for (const kid of node.kids) indexWide(kid, codes)
}

/** The trimmed copy of `list` in `codes`, made on first need. */
function sharedCodes(list: readonly number[], codes: Map<string, number[]>): number[] {
  const key = String.fromCharCode(...list)
  let shared = codes.get(key)
  if (shared === undefined) {
    shared = list.slice()
    codes.set(key, shared)
  }
  return shared
}

/** A trie node with no literal and no kids yet (every node has every field: one shape). */
function newNode<T>(parent: Building<T> | undefined): Building<T> {
  return {
    entry: undefined,
    parent,
    hit: undefined,
    codes: [],
    kids: [],
    ascii: undefined,
    wideCodes: NO_CODES,
    wideKids: NO_KIDS,
  }
}

function buildIndex<T>(
  pairs: readonly (readonly [string, T])[],
  namespaced: (item: T) => boolean = () => false,
): LiteralIndex<T> {
  const firsts: (Building<T> | undefined)[] = new Array(128).fill(undefined)
  const wideFirsts = new Map<number, Building<T>>()
  const trigger = new Uint8Array(128)
  const entries: LiteralEntry<T>[] = []
  for (const [literal, item] of pairs) {
    const first = literal.charCodeAt(0)
    const ascii = first < 128
    if (ascii) trigger[first] = 1
    let node: Building<T> | undefined = ascii ? firsts[first] : wideFirsts.get(first)
    if (node === undefined) {
      node = newNode(undefined)
      if (ascii) firsts[first] = node
      else wideFirsts.set(first, node)
    }
    for (let k = 1; k < literal.length; k++) {
      const c = literal.charCodeAt(k)
      const at: number = node.codes.indexOf(c)
      if (at >= 0) node = node.kids[at]!
      else {
        const kid: Building<T> = newNode(node)
        node.codes.push(c)
        node.kids.push(kid)
        node = kid
      }
    }
    if (node.entry === undefined) {
      node.entry = { literal, items: [item] }
      entries.push(node.entry)
    } else node.entry.items.push(item)
  }
  const ns = entries
    .filter(({ literal, items }) => literal.startsWith("<") && items.some(namespaced))
    .map(({ literal, items }) => ({ literal, items: items.filter(namespaced) }))
    .sort((a, b) => b.literal.length - a.literal.length)
  const codes = new Map<string, number[]>()
  for (const node of [...firsts, ...wideFirsts.values()]) if (node !== undefined) indexWide(node, codes)
  return { firsts, wideFirsts, trigger, ns }
}

/**
 * Compiled bodies by body spec. A spec is immutable module data (its row's own) and its compiled
 * form depends on nothing else, so each is built once and never replaced: a memo of constants, not
 * a cache of anyone's input. Compiling a format set then costs its tries and prose scanners only.
 */
const compiledBodies = new WeakMap<BodySpec, CompiledBody>()

/**
 * Body scanners by what they scan for (the literals, and whether they are namespaced), for one
 * compile: bodies that watch the same literals share one scanner (it is immutable). Of 150 default
 * bodies, 77 watch none (JSON without a closer) and only 57 literal sets differ; a scanner's pair
 * table alone is 16 KB.
 */
type ScannerMemo = Map<string, Scanner>

function bodyFor(spec: BodySpec, scanners: ScannerMemo): CompiledBody {
  let body = compiledBodies.get(spec)
  if (body === undefined) {
    body = compileBody(spec, scanners)
    compiledBodies.set(spec, body)
  }
  return body
}

/** The scanner for `literals`, shared with the compile's other bodies that scan for the same. */
function bodyScanner(literals: readonly string[], ns: NsTags, scanners: ScannerMemo): Scanner {
  const key = `${ns}\u0000${literals.join("\u0000")}`
  let scanner = scanners.get(key)
  if (scanner === undefined) {
    scanner = makeScanner(literals, undefined, ns)
    scanners.set(key, scanner)
  }
  return scanner
}

function compileBody(spec: BodySpec, scanners: ScannerMemo): CompiledBody {
  const closerLiterals =
    spec.kind === "tags"
      ? spec.entries.filter((e) => e.role === "closer").map((e) => e.literal)
      : spec.closers
  const entries: BodyEntry[] =
    spec.kind === "tags" ? [...spec.entries] : spec.closers.map((literal) => ({ literal, role: "closer" }))
  const ns = spec.kind === "tags" && spec.ns === true
  const index = buildIndex(
    entries.map((e) => [e.literal, e] as const),
    () => ns,
  )
  const stringTrigger = new Uint8Array(128)
  stringTrigger[QUOTE] = 1
  stringTrigger[BACKSLASH] = 1
  // (A Python dict's strings may close with `'`: the JSON lexer then stops there too.)
  const apostrophes = spec.kind === "json" && spec.quotes === "python"
  if (apostrophes) stringTrigger[APOSTROPHE] = 1
  const valueTrigger = new Uint8Array(128)
  const valueChars = spec.kind === "pythonic" ? "\"'()[]{}" : apostrophes ? "\"'{}[],:" : '"{}[],:'
  for (const ch of valueChars) valueTrigger[ch.charCodeAt(0)] = 1
  for (const literal of closerLiterals) {
    stringTrigger[literal.charCodeAt(0)] = 1
    valueTrigger[literal.charCodeAt(0)] = 1
  }
  return {
    spec,
    longest: Math.max(0, ...entries.map((e) => e.literal.length)),
    state: spec.kind === "tags" ? "markup-tags" : spec.kind === "json" ? "markup-json" : "markup-pythonic",
    entries: index,
    scan: bodyScanner(
      entries.map((e) => e.literal),
      ns ? "tags" : "none",
      scanners,
    ),
    closer: closerLiterals.length > 0 ? seq(ws, alt(...closerLiterals.map(lit))) : undefined,
    closerDue: closerLiterals.length > 0 && !(spec.kind === "json" && spec.closerOptional === true),
    // A bare call's orphan closers; otherwise a stray repeat of a tag, token or bracketed marker
    // closer (`</tool_call>`, LM Studio's `[END_TOOL_REQUEST]`), not of a fence closer: Command-R's
    // "```" may open the next fenced block.
    tails:
      spec.kind !== "pythonic" && spec.bare !== undefined
        ? spec.bare.tails.map((t) => tail(t.literal, t.pattern, ns, t.format))
        : entries
            .filter((e) => e.role === "closer" && (e.literal.startsWith("<") || e.literal.startsWith("[")))
            .map((e) => tail(e.literal, e.pattern, ns, undefined)),
    stringTrigger,
    valueTrigger,
  }
}

/** `ws literal` (with any namespace prefix in an `ns` body) and the closer's own pattern, if it has one. */
function tail(
  literal: string,
  pattern: Pattern | undefined,
  ns: boolean,
  format: FormatId | undefined,
): CompiledTail {
  const marker = ns ? nsLit(literal) : lit(literal)
  return { pattern: pattern === undefined ? seq(ws, marker) : seq(ws, marker, pattern), format }
}

/** `ws` then `{` or `[`: a JSON value follows (a header's payload, or another value after a separator). */
export const NEXT_VALUE: Pattern = seq(ws, peek(alt(lit("{"), lit("["))))
/** `ws` then `,` or `;` then `ws`: a separator between values. */
export const SEPARATOR: Pattern = seq(ws, alt(lit(","), lit(";")), ws)

/**
 * What the prose scan stops at for a literal: the literal itself or, for a one-character literal
 * whose row says what may follow it, the literal with each follower (only the first two
 * characters of a scan literal count: the pair table then stops only there).
 */
function scanLiterals([literal, start]: readonly [string, Start]): string[] {
  const follows = start.kind === "markup" && literal.length === 1 ? start.row.follows : undefined
  return follows === undefined ? [literal] : [...follows].map((c) => literal + c)
}

function compile(enabled: ReadonlySet<FormatId>, tools: readonly string[]): Tables {
  const longest = { value: 0 }
  const text: [string, Start][] = []
  const anchor: [string, Start][] = []
  const line: [string, Start][] = []
  const bodies = new Map<OpenerRow, CompiledBody>()
  const scanners: ScannerMemo = new Map()
  const rows = [...OPENER_ROWS, ...TOKEN_ROWS].flatMap((row) =>
    row.perTool ? tools.map((tool) => forTool(row, tool)) : [row],
  )
  for (const row of rows) {
    if (!enabled.has(row.format)) continue
    const target = row.where === "anchor" ? anchor : row.where === "line" ? line : text
    // One start for all the row's literals (a family row has dozens).
    const start: Start = { kind: "markup", row }
    for (const literal of row.literals) {
      target.push([literal, start])
      longest.value = Math.max(longest.value, literal.length)
    }
    const body = bodyFor(row.body, scanners)
    longest.value = Math.max(longest.value, body.longest)
    bodies.set(row, body)
  }
  const reasoningRows = REASONING_ROWS.filter(
    (row) => row.formats === undefined || row.formats.some((f) => enabled.has(f)),
  )
  // After the markup rows: a closer that is a format's own token (`</mm:think>`) stays that token.
  text.push(...templateEnds(reasoningRows, new Set(text.map(([literal]) => literal))))
  // What prose is scanned for: markup openers, then reasoning openers (a block's own prose adds its closers).
  const namespaced = text.some(([, start]) => namespacedStart(start))
  const reasoningLiterals = reasoningRows
    .filter((row) => row.where !== "anchor")
    .flatMap((row) => row.literals)
  const textLiterals = [...text.flatMap(scanLiterals), ...reasoningLiterals]
  // What a line may start with that matters there: a line-anchored opener, an HTML block (`<pre>`)
  // or a list item (its content column decides what counts as indented code).
  // A bare tool name at a line's start (Granite's `NAME(…)` line) matters only on a line that an
  // offered name starts: those first letters join the scan per tools (`textScanFor`), so that a
  // line of prose is not stopped at for every letter (reasoning's scan never stops there).
  const isNameLine = (start: Start): boolean => start.kind === "markup" && start.row.bareName
  const nameLines = [...new Set(line.filter(([, s]) => isNameLine(s)).map(([literal]) => literal.charAt(0)))]
  const lineStarts = [
    ...line.filter(([, s]) => !isNameLine(s)).map(([literal]) => literal.charCodeAt(0)),
    ...LINE_BLOCK_STARTS,
  ]
  const lineStart = new Uint8Array(128)
  for (const c of lineStarts) lineStart[c] = 1
  for (const c of nameLines) lineStart[c.charCodeAt(0)] = 1
  const lines = { lineStarts }
  for (const row of reasoningRows) {
    const closers = row.close.map((c) => c.literal)
    const close = buildIndex(row.close.map((c) => [c.literal, c] as const))
    const fenceTrigger = Uint8Array.from(close.trigger)
    fenceTrigger[LF] = 1
    const start: Start = {
      kind: "reasoning",
      row: {
        row,
        close,
        textScan: makeScanner([...textLiterals, ...closers], lines, namespaced ? "open" : "none"),
        fenceTrigger,
      },
    }
    const target = row.where === "anchor" ? anchor : text
    for (const literal of row.literals) target.push([literal, start])
    for (const literal of [...row.literals, ...closers])
      longest.value = Math.max(longest.value, literal.length)
  }
  // One-character openers gated on the name they read first (`[` of `[NAME(`), with their
  // followers: narrowed per tools (`textScanFor`); the other prose literals stay as they are.
  const gated: [string, string][] = []
  const ungated: [string, Start][] = []
  for (const entry of text) {
    const [literal, start] = entry
    if (
      literal.length === 1 &&
      start.kind === "markup" &&
      start.row.follows !== undefined &&
      checksNameFirst(start.row)
    )
      gated.push([literal, start.row.follows])
    else ungated.push(entry)
  }
  const ns = namespaced ? "open" : "none"
  return {
    text: buildIndex(text, namespacedStart),
    textScan: makeScanner(textLiterals, lines, ns),
    anchor: buildIndex(anchor),
    line: buildIndex(line),
    lineStart,
    bodies,
    nameFirst: new Set([...bodies.keys()].filter(checksNameFirst)),
    narrowing:
      gated.length === 0 && nameLines.length === 0
        ? undefined
        : {
            literals: [...ungated.flatMap(scanLiterals), ...reasoningLiterals],
            gated,
            lineStarts,
            nameLines: nameLines.join(""),
            ns,
            byFirsts: new Map(),
          },
    longest: longest.value,
  }
}

/** A tag's line ends right after it (CR LF too); its answer starts on the next line. */
const LINE_END: Pattern = peek(alt(lit("\n"), lit("\r\n")))

/**
 * The closers of the reasoning blocks a chat template opens in the prompt (`openedInPrompt`), each
 * once (`taken`: literals markup rows already start). A special token ends the block wherever it
 * stands (`[/THINK]`, `</seed:think>`); a tag prose names (`</think>`: a row that opens only at the
 * answer's start) only where its line ends, as templates write it (`…</think>\n\n`), or where the
 * row's `answerOnLine` follows it (`…</think>[{"name": …`): "close it with </think> then…" stays prose.
 */
function templateEnds(rows: readonly ReasoningRow[], taken: ReadonlySet<string>): [string, Start][] {
  const ends = new Map<string, Start>()
  for (const row of rows) {
    if (row.openedInPrompt !== true) continue
    const glued = row.answerOnLine
    const line =
      row.where !== "anchor" ? undefined : glued === undefined ? LINE_END : alt(LINE_END, peek(glued))
    for (const close of row.close) {
      if (close.peek || taken.has(close.literal) || ends.has(close.literal)) continue
      const own = close.pattern
      const confirm = own === undefined ? (line ?? seq()) : line === undefined ? own : seq(own, line)
      ends.set(close.literal, { kind: "reasoning-end", confirm })
    }
  }
  return [...ends]
}

/** Narrowed prose scanners kept per table set (distinct first characters of offered names). */
const NARROWED = 16

/**
 * The prose scanner of a detector offered `tools`. A one-character opener gated on the name it
 * reads first (`[` of `[NAME(`) fails, with tools offered, unless whitespace or the first character
 * of an offered name follows it (`confirmRow`'s check): `[keys]`, `[1]` and `[the docs]` are then
 * no stops. Likewise a line is stopped at for a bare name at its start (Granite's `NAME(…)` line)
 * only where an offered name's first character starts it. The scanner is the shared one where
 * nothing narrows, and one per set of first characters otherwise (shared by every detector offered
 * names with the same ones).
 */
export function textScanFor(tables: Tables, tools: readonly string[]): Scanner {
  const narrowing = tables.narrowing
  // (An empty name's `json` spelling starts with `j`: such a list is not narrowed.)
  if (narrowing === undefined || tools.length === 0 || tools.includes("")) return tables.textScan
  // The key is the set, sorted: the same tools in another order (`Read, Bash`) share one scanner.
  const firsts = [...new Set(tools.map((tool) => tool.charAt(0)))].sort().join("")
  let scanner = narrowing.byFirsts.get(firsts)
  if (scanner === undefined) {
    const gated = narrowing.gated.flatMap(([literal, follows]) =>
      [...follows]
        .filter((c) => !inClass("ident", c.charCodeAt(0)) || firsts.includes(c))
        .map((c) => literal + c),
    )
    const nameLines = [...narrowing.nameLines].filter((c) => firsts.includes(c)).map((c) => c.charCodeAt(0))
    if (narrowing.byFirsts.size >= NARROWED) narrowing.byFirsts.clear()
    scanner = makeScanner(
      [...narrowing.literals, ...gated],
      { lineStarts: [...narrowing.lineStarts, ...nameLines] },
      narrowing.ns,
    )
    narrowing.byFirsts.set(firsts, scanner)
  }
  return scanner
}

/**
 * Whether `row`'s gate decides on the name its confirm reads first: a gated row with no name of its
 * own and no envelope that admits any name, whose confirm is `ws? name …` with no other capture.
 */
function checksNameFirst(row: OpenerRow): boolean {
  if (!row.gate || row.toolName !== undefined || row.unoffered !== undefined || row.bareName) return false
  const p = row.confirm
  if (p.kind !== "seq") return false
  const head = p.items[0]?.kind === "ws" ? 1 : 0
  const first = p.items[head]
  // (`mayNameOffered` reads a name as far as a space: a name of words is left to the grammar and the gate.)
  return first?.kind === "name" && first.chars !== "spaced" && first.capture && captures(p) === 1
}

/** How many names `p` captures (each `name` node once, wherever it stands). */
function captures(p: Pattern): number {
  switch (p.kind) {
    case "name":
      return p.capture ? 1 : 0
    case "seq":
    case "alt":
      return p.items.reduce((n, item) => n + captures(item), 0)
    case "opt":
    case "peek":
    case "not":
    case "cut-in":
      return captures(p.item)
    default:
      return 0
  }
}

/** `<` (an HTML block), `-`, `*`, `+` and digits (a list item): block starts that matter at a line start. */
const LINE_BLOCK_STARTS: readonly number[] = [..."<>-*+0123456789"].map((c) => c.charCodeAt(0))

/** A `perTool` row for one tool: {@link TOOL} filled in, and the tool reported as its name. */
function forTool(row: OpenerRow, tool: string): OpenerRow {
  const fill = (literal: string): string => literal.split(TOOL).join(tool)
  const body: BodySpec =
    row.body.kind === "tags"
      ? { ...row.body, entries: row.body.entries.map((e) => ({ ...e, literal: fill(e.literal) })) }
      : row.body
  return { ...row, literals: row.literals.map(fill), body, toolName: tool, perTool: false }
}

/** Whether the tables for `enabled` depend on the tools (a `perTool` row is enabled). */
function perToolEnabled(enabled: ReadonlySet<FormatId>): boolean {
  return OPENER_ROWS.some((row) => row.perTool && enabled.has(row.format))
}

function namespacedStart(start: Start): boolean {
  return start.kind === "markup" && start.row.ns
}

/** The default formats' tables: one immutable value, built on first use (never replaced). */
let defaults: Tables | undefined

/** Tables compiled for a `formats` array a caller passed, and the array's contents they were built for. */
interface Owned {
  readonly ids: string
  /** By tool list with a `perTool` row (its tables depend on the tools), newest last; else one entry. */
  readonly byTools: Map<string, Tables>
}

/** Tool lists remembered per `formats` array with a `perTool` row (a host with more recompiles). */
const TOOL_SETS = 8

/**
 * Tables for the `formats` arrays callers pass, owned by those arrays: kept while the caller keeps
 * its array (an adapter resolves its options once and passes the same array every turn) and
 * dropped with it; one caller's arrays never evict another's. Keyed by identity and checked
 * against the contents, so an array changed after use is compiled again.
 */
const byCaller = new WeakMap<readonly FormatId[], Owned>()

/**
 * The tables for a detector. Without `formats` (the default formats), the one immutable default
 * value: creating a detector costs no lookup and no key. Otherwise the tables owned by the
 * caller's `formats` array (and, with a `perTool` row such as `cline-xml`'s, its tools).
 */
export function tablesFor(
  formats: readonly FormatId[] | undefined,
  enabled: ReadonlySet<FormatId>,
  tools: readonly string[],
): Tables {
  if (formats === undefined) {
    defaults ??= compile(enabled, [])
    return defaults
  }
  const ids = formats.join(",")
  let owned = byCaller.get(formats)
  if (owned === undefined || owned.ids !== ids) {
    owned = { ids, byTools: new Map() }
    byCaller.set(formats, owned)
  }
  const key = perToolEnabled(enabled) ? tools.join("\u0000") : ""
  let tables = owned.byTools.get(key)
  if (tables === undefined) {
    if (owned.byTools.size >= TOOL_SETS) owned.byTools.delete(owned.byTools.keys().next().value!)
    tables = compile(enabled, tools)
    owned.byTools.set(key, tables)
  }
  return tables
}
