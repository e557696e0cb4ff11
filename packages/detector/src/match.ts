/** Matching literals and patterns at a position, within the hold window. */

import { COLON, isXmlPrefixPart, LT, MAX_XML_PREFIX, RBRACKET, RPAREN, SLASH } from "./char-codes.ts"
import type { LiteralIndex, Start, TrieNode } from "./compile.ts"
import type { BodyEntry, OpenerRow, ReasoningClose } from "./format-table.ts"
import { MAX_NAME, type Machine, offers, type TagCut } from "./machine.ts"
import { FAIL, inClass, isSpace, MORE, match } from "./pattern.ts"
import { noteRun } from "./run-memo.ts"

export function limitAt(m: Machine, i: number): number {
  return Math.min(m.buf.length, i + m.maxHold)
}

export function finalAt(m: Machine, i: number): boolean {
  return m.final || i + m.maxHold <= m.buf.length
}

/** The window at `i` ends at the end of the stream, not at the hold cap. */
export function streamEndAt(m: Machine, i: number): boolean {
  return m.final && i + m.maxHold > m.buf.length
}

/** The child of `node` for character `c`, if a literal continues so. */
function childOf<T>(node: TrieNode<T>, c: number): TrieNode<T> | undefined {
  let codes = node.codes
  let kids = node.kids
  if (node.ascii !== undefined) {
    if (c < 128) return node.ascii[c]
    codes = node.wideCodes
    kids = node.wideKids
  }
  for (let k = 0; k < codes.length; k++) if (codes[k] === c) return kids[k]
  return undefined
}

/** Matches the rest of literal `s` (its first character already matched) at `i`. */
export function literalAt(m: Machine, s: string, i: number, limit: number, fin: boolean): number {
  for (let k = 1; k < s.length; k++) {
    if (i + k >= limit) return fin ? FAIL : MORE
    if (m.buf.charCodeAt(i + k) !== s.charCodeAt(k)) return FAIL
  }
  return i + s.length
}

/** Offered names win; `to=functions.shelljson` (Harmony glued to its constraint) names `shell`. */
export function normalize(m: Machine, name: string): string {
  if (offers(m, name) || !name.endsWith("json")) return name
  const bare = name.slice(0, -4)
  return offers(m, bare) ? bare : name
}

/**
 * What a match found: the kind of literal, what it means, and `end`, one past its last character
 * (after its confirm or pattern). A failed or undecided match is {@link FAIL} or {@link MORE}.
 */
export type Hit =
  /** A markup or reasoning opener, with the name its confirm captured. */
  | { readonly kind: "start"; readonly end: number; readonly start: Start; readonly name: string | undefined }
  /** A closer of the open reasoning block. */
  | { readonly kind: "close"; readonly end: number; readonly close: ReasoningClose }
  /** A literal of the open call's body, with the name its pattern captured. */
  | {
      readonly kind: "body"
      readonly end: number
      readonly entry: BodyEntry
      readonly name: string | undefined
    }

export type StartHit = Extract<Hit, { kind: "start" }>
export type CloseHit = Extract<Hit, { kind: "close" }>
export type BodyHit = Extract<Hit, { kind: "body" }>

/** A hit, or {@link FAIL} / {@link MORE}. */
export type Matched<H> = H | typeof FAIL | typeof MORE

/** Decides on a literal of `items` that matched at `i` and ends at `end`: a hit, FAIL or MORE. */
type Accept<T, H> = (
  m: Machine,
  items: readonly T[],
  i: number,
  end: number,
  limit: number,
  fin: boolean,
) => Matched<H>

/**
 * The first literal of `index` that matches at `i` and that `accept` takes.
 * Longest first: while a longer literal may still complete, nothing shorter is decided. One walk
 * down the trie, however many literals share the prefix.
 */
function matchIndex<T, H>(m: Machine, index: LiteralIndex<T>, i: number, accept: Accept<T, H>): Matched<H> {
  const first = m.buf.charCodeAt(i)
  const root = first < 128 ? index.firsts[first] : index.wideFirsts.get(first)
  if (root === undefined) return FAIL
  let node: TrieNode<T> = root
  let j = i + 1
  const walk = m.walk
  if (walk !== undefined && walk.index === index && walk.at === m.base + i) {
    // The same walk, cut off by the end of the last push: go on from where it stopped.
    node = walk.node as TrieNode<T>
    j = walk.to - m.base
  }
  const limit = limitAt(m, i)
  const fin = finalAt(m, i)
  for (; node.kids.length > 0; j++) {
    if (j >= limit) {
      if (fin) break
      // A longer literal may still complete here.
      if (walk === undefined) m.walk = { index, at: m.base + i, to: m.base + j, node }
      else {
        walk.index = index
        walk.at = m.base + i
        walk.to = m.base + j
        walk.node = node
      }
      return MORE
    }
    const next: TrieNode<T> | undefined = childOf(node, m.buf.charCodeAt(j))
    if (next === undefined) break
    node = next
  }
  for (let n: TrieNode<T> | undefined = node.hit; n !== undefined; n = n.parent?.hit) {
    const entry = n.entry
    if (entry === undefined) continue // (never: a `hit` has its literal)
    const stop = accept(m, entry.items, i, i + entry.literal.length, limit, fin)
    if (stop !== FAIL) return stop
  }
  // Namespaced literals are tags: only a `<` may start one.
  return index.ns.length === 0 || first !== LT ? FAIL : matchNamespaced(m, index, i, limit, fin, accept)
}

/**
 * What the walk of `index` that the last push left open at `buf[0]`, through all of `buf`, does
 * through `delta` (about to be appended), as {@link matchIndex} would go on there. Reads the delta
 * only: the held text is not read again, nor the appended buffer made flat (reading a character
 * of a joined buffer copies all of it).
 * - `goes-on`: it still needs more (matchIndex answers MORE; its memo moves on, as this does). A
 *   push that only extends a held marker prefix (`<｜tool▁ca` + `lls▁`) is decided so.
 * - `stops`: it stops inside the delta where no literal ended on its path (`<｜tool▁ca` + `<｜t`,
 *   a prefix cut off by the next one): only a namespaced tag may still start at `buf[0]`
 *   ({@link mayStartNamespaced}); else matchIndex answers FAIL there.
 * - `undecided`: anything else (no such walk, a literal that completed, a capped window).
 */
export function heldWalk(
  m: Machine,
  index: LiteralIndex<unknown>,
  delta: string,
): "goes-on" | "stops" | "undecided" {
  const held = m.buf.length
  const walk = m.walk
  // A capped window decides the walk now, as does a literal that ends the trie's branch.
  if (
    walk === undefined ||
    walk.index !== index ||
    walk.at !== m.base ||
    walk.to !== m.base + held ||
    m.maxHold <= held + delta.length
  )
    return "undecided"
  let node: TrieNode<unknown> = walk.node
  for (let k = 0; k < delta.length; k++) {
    const next: TrieNode<unknown> | undefined =
      node.kids.length === 0 ? undefined : childOf(node, delta.charCodeAt(k))
    if (next === undefined) return node.hit === undefined ? "stops" : "undecided"
    node = next
  }
  if (node.kids.length === 0) return "undecided"
  walk.to = m.base + held + delta.length
  walk.node = node
  return "goes-on"
}

/**
 * What `delta` (about to be appended to `buf`) does to the tag's XML prefix that the last push cut
 * off at `buf[0]` (`tag`, which ends where `buf` does), as {@link matchIndex} would answer there.
 * Reads the delta only, on from where the prefix was cut off.
 * - `goes-on`: the prefix still needs more (`<ht` + `tps`): MORE, as the memo now notes.
 * - `fails`: it ends where no namespaced literal can follow (`<ht` + `ml>`, `<div` + ` cl`): FAIL.
 * - `undecided`: anything else (its colon, a capped window).
 */
export function heldTag(m: Machine, tag: TagCut, delta: string): "goes-on" | "fails" | "undecided" {
  const end = tag.to
  if (m.maxHold <= m.buf.length + delta.length) return "undecided"
  // As `matchNamespaced` reads the prefix (`from`: where it starts; `end + k`: the character read).
  for (let k = 0; k < delta.length; k++) {
    const c = delta.charCodeAt(k)
    const n = end + k - tag.from
    if (n <= MAX_XML_PREFIX && isXmlPrefixPart(c)) continue
    if (c !== COLON || n === 0 || n > MAX_XML_PREFIX) return "fails"
    // Its colon: no namespaced literal goes on with what follows it (`<https:/`), or the machine decides.
    return nsFails(tag.index, tag.from - tag.at === 2, delta, k + 1) ? "fails" : "undecided"
  }
  tag.to = end + delta.length
  return "goes-on"
}

/**
 * Whether no namespaced literal of `index` (closing ones with `slash`) goes on after a prefix's
 * colon with `delta` from `k` on (some characters follow the colon), as {@link matchNamespaced}
 * compares them.
 */
function nsFails(index: LiteralIndex<unknown>, slash: boolean, delta: string, k: number): boolean {
  if (k >= delta.length) return false
  const head = slash ? 2 : 1
  for (const entry of index.ns) {
    const s = entry.literal
    if ((s.charCodeAt(1) === SLASH) !== slash) continue
    let same = true
    for (let q = 0; q < delta.length - k && head + q < s.length; q++)
      if (delta.charCodeAt(k + q) !== s.charCodeAt(head + q)) {
        same = false
        break
      }
    if (same) return false
  }
  return true
}

/**
 * Whether {@link matchNamespaced} may take `text[0]` (not decided FAIL at once): `index` has
 * namespaced literals, and `text` starts with a `<` (or `</`) that the first character of an XML
 * prefix follows, or ends there.
 */
export function mayStartNamespaced(index: LiteralIndex<unknown>, text: string): boolean {
  if (index.ns.length === 0 || text.charCodeAt(0) !== LT) return false
  let j = 1
  if (text.charCodeAt(j) === SLASH) j++
  return j >= text.length || isXmlPrefixPart(text.charCodeAt(j))
}

/**
 * Whether `delta` (about to be appended to `buf`) only extends the run that a prose marker's
 * confirm at `buf[0]` stopped in at the end of the last push (`[functo` + `ols_`): every new
 * character is of the run's class, the run stays within its bound and the window is not capped,
 * so the confirm would answer MORE again. The run memo moves on, as the run would.
 */
export function runGoesOn(m: Machine, delta: string): boolean {
  const run = m.cutRun
  const len = m.buf.length + delta.length
  if (run === undefined || m.cutEnd !== m.base + m.buf.length || m.maxHold <= len) return false
  const start = m.cutFrom - m.base
  if (run.kind === "name") {
    if (len - start > run.max) return false
    for (let k = 0; k < delta.length; k++) if (!inClass(run.chars, delta.charCodeAt(k))) return false
  } else for (let k = 0; k < delta.length; k++) if (!isSpace(delta.charCodeAt(k))) return false
  noteRun(m, run, start, len)
  m.cutEnd = m.base + len
  return true
}

/**
 * A namespaced literal at `i` with any XML prefix: `<x:invoke name="` for `<invoke name="`,
 * `</x:invoke>` for `</invoke>` (Claude writes `antml:`; other models and proxies other prefixes).
 * `buf[i]` is `<`.
 */
function matchNamespaced<T, H>(
  m: Machine,
  index: LiteralIndex<T>,
  i: number,
  limit: number,
  fin: boolean,
  accept: Accept<T, H>,
): Matched<H> {
  // ```markdown
  // > | <x:invoke name="read_file">
  //     ^ ^ prefix, then the literal's rest
  // ```
  let j = i + 1
  if (j >= limit) return fin ? FAIL : MORE
  const slash = m.buf.charCodeAt(j) === SLASH
  if (slash) j++
  const from = j
  while (j < limit && j - from <= MAX_XML_PREFIX && isXmlPrefixPart(m.buf.charCodeAt(j))) j++
  if (j >= limit) {
    if (fin) return FAIL
    noteTag(m, index, i, from)
    return MORE
  }
  if (j === from || j - from > MAX_XML_PREFIX || m.buf.charCodeAt(j) !== COLON) return FAIL
  const head = slash ? 2 : 1
  for (const entry of index.ns) {
    const s = entry.literal
    if ((s.charCodeAt(1) === SLASH) !== slash) continue
    let end = j + 1
    for (let k = head; k < s.length; k++, end++) {
      if (end >= limit) {
        end = fin ? FAIL : MORE
        break
      }
      if (m.buf.charCodeAt(end) !== s.charCodeAt(k)) {
        end = FAIL
        break
      }
    }
    if (end === MORE) return MORE
    if (end === FAIL) continue
    const stop = accept(m, entry.items, i, end, limit, fin)
    if (stop !== FAIL) return stop
  }
  return FAIL
}

/**
 * Notes the tag at `i` whose XML prefix (from `from`) the end of the input cut off: the next push
 * reads on from there ({@link heldTag}). Apart from `matchNamespaced`, which stays small.
 */
function noteTag(m: Machine, index: LiteralIndex<unknown>, i: number, from: number): void {
  const tag = m.tag
  const to = m.base + m.buf.length
  if (tag === undefined) m.tag = { index, at: m.base + i, from: m.base + from, to }
  else {
    tag.index = index
    tag.at = m.base + i
    tag.from = m.base + from
    tag.to = to
  }
}

/** A markup opener or reasoning opener at `i`. */
export function matchStart(m: Machine, index: LiteralIndex<Start>, i: number): Matched<StartHit> {
  return matchIndex(m, index, i, acceptStart)
}

function acceptStart(
  m: Machine,
  items: readonly Start[],
  i: number,
  end: number,
  limit: number,
  fin: boolean,
): Matched<StartHit> {
  for (const item of items) {
    if (item.kind === "reasoning" && m.reasoning !== undefined) continue // blocks do not nest
    if (item.kind === "reasoning-end") {
      // Only while no reasoning marker came before it (inside a block, its own closer matched first).
      if (!m.templateReasoning) continue
      const stop = match(item.confirm, m.buf, end, limit, fin, m, streamEndAt(m, i))
      if (stop === MORE) return MORE
      if (stop >= 0) return { kind: "start", end: stop, start: item, name: undefined }
      continue
    }
    if (item.kind === "reasoning") {
      const stop = match(item.row.row.confirm, m.buf, end, limit, fin, m, streamEndAt(m, i))
      if (stop === MORE) return MORE
      if (stop >= 0) return { kind: "start", end: stop, start: item, name: undefined }
      continue
    }
    const hit = confirmRow(m, item, i, end, limit, fin)
    if (hit !== FAIL) return hit
  }
  return FAIL
}

/** A markup row's confirm after its literal (which ends at `end`), and its gate. */
function confirmRow(
  m: Machine,
  start: Extract<Start, { kind: "markup" }>,
  i: number,
  end: number,
  limit: number,
  fin: boolean,
): Matched<StartHit> {
  const row = start.row
  // A bare name at a line's start (Granite's `NAME(…)` line) is not read inside a reasoning block:
  // its scan does not stop at such lines (see `textScanFor`), so a list item's would be the only one.
  if (row.bareName && row.where === "line" && m.reasoning !== undefined) return FAIL
  if (row.bareName && !mayNameTool(m, i, limit, fin)) return FAIL
  // (Names of words are rare: a list without one pays nothing for these rows.)
  if (row.offeredOnly && !m.spacedTools) return FAIL
  if (row.detached && endsExpression(i > 0 ? m.buf.charCodeAt(i - 1) : m.prevCode)) return FAIL
  // `[keys]`, `[i]`: a name no offered tool has fails the gate; decided before the grammar runs.
  const gated = m.tools.length > 0 && m.tables.nameFirst.has(row)
  if (gated && !mayNameOffered(m, end, limit, fin)) return FAIL
  m.captured = undefined
  const stop = match(row.confirm, m.buf, row.bareName ? i : end, limit, fin, m, streamEndAt(m, i))
  if (stop === MORE && (row.bareName || (gated && m.cutRun?.kind === "name"))) {
    // Its gate (`mayNameTool`, `mayNameOffered`) reads the cut-off name too: a longer one may fail
    // it (`[read_file_` names no offered tool), so a name that goes on is not held without it.
    m.cutRun = undefined
  }
  if (stop < 0) return stop === MORE ? MORE : FAIL
  let name: string | undefined = row.toolName ?? m.captured
  if (name !== undefined) name = normalize(m, name)
  // Bare openers (`<function=NAME>`) are markup only for an offered tool (llama.cpp's rule), or
  // when the envelope token that ends the call follows it (withheld whatever tool it names).
  if (row.offeredOnly && (name === undefined || !offers(m, name))) return FAIL
  if (row.gate && m.tools.length > 0 && (name === undefined || !offers(m, name))) {
    if (row.unoffered === undefined || name === undefined) return FAIL
    const envelope = match(row.unoffered, m.buf, stop, limit, fin, m, streamEndAt(m, i))
    if (envelope < 0) return envelope === MORE ? MORE : FAIL
  }
  // A lone special token reports only an offered tool standing in its name slot.
  if (row.token !== undefined && name !== undefined && !offers(m, name)) name = undefined
  return { kind: "start", end: stop, start, name }
}

/** Does `c` end an expression that a `[` right after it would subscript (`items[`, `f()[`, `a[0][`)? */
function endsExpression(c: number): boolean {
  return c === RPAREN || c === RBRACKET || inClass("ident", c)
}

/**
 * Whether the word at `i` is an offered tool's name, or, cut off by the window, the start of one
 * (a bare name at the start of a response: any other first word is decided at once).
 */
function mayNameTool(m: Machine, i: number, limit: number, fin: boolean): boolean {
  let j = i
  while (j < limit && j - i <= MAX_NAME && inClass("ident", m.buf.charCodeAt(j))) j++
  const word = m.buf.slice(i, j)
  if (j < limit || fin) return offers(m, word)
  for (const tool of m.tools) if (tool.startsWith(word)) return true
  return false
}

/**
 * Whether the name after optional whitespace at `i` is an offered tool's (or its `json`-glued
 * spelling, which `normalize` reads as the tool), or, cut off by the window, may still become one.
 * A long whitespace run is left to the grammar, which remembers the runs it read.
 */
function mayNameOffered(m: Machine, i: number, limit: number, fin: boolean): boolean {
  let from = i
  while (from < limit && isSpace(m.buf.charCodeAt(from))) if (++from - i > SHORT_SPACE) return true
  let to = from
  while (to < limit && to - from <= MAX_NAME && inClass("ident", m.buf.charCodeAt(to))) to++
  const cut = to === limit && !fin
  if (to - from > MAX_NAME || (cut && to === from)) return true
  for (const tool of m.tools) if (spells(m.buf, from, to, tool, cut)) return true
  return false
}

/** Whitespace a name check reads before leaving the rest to the grammar. */
const SHORT_SPACE = 8

/** Whether `text[from, to)` is `tool` or `tool` + `json` (with `cut`: a prefix of either). */
function spells(text: string, from: number, to: number, tool: string, cut: boolean): boolean {
  const n = to - from
  const glued = tool.length + JSON_SUFFIX.length
  if (n > glued) return false
  for (let k = 0; k < n; k++) {
    const c = k < tool.length ? tool.charCodeAt(k) : JSON_SUFFIX.charCodeAt(k - tool.length)
    if (text.charCodeAt(from + k) !== c) return false
  }
  return cut || n === tool.length || n === glued
}

const JSON_SUFFIX = "json"

/** One of `row`'s own literals and its confirm at `i`: a glued next call. */
export function matchRow(m: Machine, row: OpenerRow, i: number): Matched<StartHit> {
  const limit = limitAt(m, i)
  const fin = finalAt(m, i)
  if (i >= limit) return fin ? FAIL : MORE
  const start: Start = { kind: "markup", row }
  for (const literal of row.literals) {
    if (m.buf.charCodeAt(i) !== literal.charCodeAt(0)) continue
    const end = literalAt(m, literal, i, limit, fin)
    if (end === MORE) return MORE
    if (end === FAIL) continue
    const hit = confirmRow(m, start, i, end, limit, fin)
    if (hit !== FAIL) return hit
  }
  return FAIL
}

/** A closing marker of the open reasoning block at `i`. */
export function matchClose(m: Machine, index: LiteralIndex<ReasoningClose>, i: number): Matched<CloseHit> {
  return matchIndex(m, index, i, acceptClose)
}

function acceptClose(
  m: Machine,
  items: readonly ReasoningClose[],
  _i: number,
  end: number,
  limit: number,
  fin: boolean,
): Matched<CloseHit> {
  const close = items[0]!
  if (close.pattern === undefined) return { kind: "close", end, close }
  const stop = match(close.pattern, m.buf, end, limit, fin, m)
  if (stop < 0) return stop === MORE ? MORE : FAIL
  return { kind: "close", end: stop, close }
}

/** A literal of the open call's body at `i`. */
export function matchBody(m: Machine, index: LiteralIndex<BodyEntry>, i: number): Matched<BodyHit> {
  return matchIndex(m, index, i, acceptBody)
}

function acceptBody(
  m: Machine,
  items: readonly BodyEntry[],
  _i: number,
  end: number,
  limit: number,
  fin: boolean,
): Matched<BodyHit> {
  const entry = items[0]!
  m.captured = undefined
  const stop = entry.pattern === undefined ? end : match(entry.pattern, m.buf, end, limit, fin, m)
  if (stop < 0) return stop === MORE ? MORE : FAIL
  const name = m.captured === undefined ? undefined : normalize(m, m.captured)
  return { kind: "body", end: stop, entry, name }
}
