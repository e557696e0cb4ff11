/**
 * The Markdown states: line starts, fenced code (CommonMark §4.5), indented code (§4.4), HTML
 * blocks of kind 1 (§4.6) and inline code spans (§6.1). Code of every kind is an example: markup
 * inside it is never flagged, also in list items (§5.2) and blockquotes (§5.1), nested either way.
 * Blockquotes themselves are prose (`> <tool_call>` is a call).
 */

import { BACKTICK, CR, GT, LF, LT, SPACE, TAB, TILDE } from "./char-codes.ts"
import { closeReasoning, openMarkup } from "./emit.ts"
import { dropRuns, isBlank, MAX_RUNS, type Machine, NO_QUOTE, NO_RUNS } from "./machine.ts"
import { finalAt, limitAt, matchClose, matchStart } from "./match.ts"
import { FAIL, MORE } from "./pattern.ts"
import { noteRun, resumeRun } from "./run-memo.ts"

export function stateLineStart(m: Machine): boolean {
  const len = m.buf.length
  let i = readIndent(m)
  while (i < len && m.buf.charCodeAt(i) === CR) {
    // (A CR before the line feed: the line is still blank, and its indentation goes on after it.)
    m.pos = i + 1
    i = readIndent(m)
  }
  if (i === len) return false
  const c = m.buf.charCodeAt(i)
  if (c === LF) {
    // A blank line ends the paragraph: unmatched backtick runs stay literal (CommonMark §6.1).
    dropRuns(m)
    m.lineIndent = 0
    m.para = false
    m.pos = i + 1
    return true
  }
  if (!m.para && c !== GT) {
    // Not in a quote, and no lazy line (a quoted line sets its own below; also before indented code).
    m.paraQuote = 0
    m.quoteList = 0
  }
  // The open list items the line is not in end first (§5.2): its indentation counts from the
  // content of the innermost one it is in.
  if (!m.para && m.lineIndent < m.listIndent) closeItemsTo(m, m.lineIndent) // (after a blank line)
  if (!m.para && m.lineIndent >= m.listIndent + 4) {
    // ```markdown
    //   |
    // > |     <function=read_file>
    //         ^ four spaces past the list item's content, after a blank line: indented code (§4.4)
    // ```
    m.anchor = false
    dropRuns(m)
    m.state = "indented-code"
    return true
  }
  const item = listItemAt(m, i, m.lineIndent)
  if (item === MORE) return false
  if (item !== FAIL) {
    // ```markdown
    // > | - ```json
    //       ^ the item's content may open a block of its own: a fence, an HTML block, code (§5.2)
    // ```
    // Read on from the content column as from a line start (five columns or more after the
    // marker: one of them, then indented code).
    openItem(m, m.lineIndent, m.lineIndent + item.width)
    m.lineIndent += item.atColumn
    m.anchor = false
    m.para = false
    m.pos = item.at
    return true
  }
  // Fences and HTML blocks are indented relative to the open list item's content (§5.2).
  const indent = m.lineIndent - m.listIndent
  if (indent <= 3 && c === LT) {
    const r = htmlBlockAt(m, i)
    if (r === MORE) return false
    if (r !== FAIL) {
      if (indent < 0) closeItemsTo(m, m.lineIndent) // left of the item's content: the block ends it (no lazy line)
      // ```markdown
      // > | <pre>
      //     ^ an HTML block of kind 1: code until the line holding its closing tag (§4.6)
      // ```
      m.anchor = false
      dropRuns(m)
      m.pos = r
      m.state = "html-block"
      return true
    }
  }
  if (indent <= 3 && c === GT) {
    if (indent < 0) {
      // ```markdown
      //   | - > Run:
      // > | >     <tool_call>
      //     ^ left of the item's content: a new quote (a `>` starts no paragraph continuation
      //       text, §5.2), and the item ends, with the quote and the paragraph in it
      // ```
      closeItemsTo(m, m.lineIndent)
      m.para = false
    }
    const quoted = quotedBlockAt(m, i, m.lineIndent, m.listIndent)
    if (quoted === MORE) return false
    if (quoted !== FAIL) return enterQuoted(m, quoted)
  }
  if (indent <= 3 && (c === BACKTICK || c === TILDE)) {
    if (indent < 0) closeItemsTo(m, m.lineIndent) // left of the item's content: a fence ends it (no lazy line)
    m.blockQuote = NO_QUOTE
    m.runChar = c
    m.runLen = 0
    m.state = "fence-open"
    return true
  } else if (m.lineIndent <= 3 && c < 128 && m.tables.line.trigger[c] !== 0) {
    const hit = matchStart(m, m.tables.line, i)
    if (hit === MORE) return false
    if (hit !== FAIL && hit.start.kind === "markup") {
      // An inline code span crosses line ends within its paragraph (CommonMark §6.1): inside a
      // possible span the opener is an example, unless the span never closes.
      if (m.runs.length === 0) return openMarkup(m, i, hit.start.row, hit.end, hit.name)
      if (m.base + i >= m.codeUntil) {
        m.checkStart = m.checkPos = m.base + i
        m.checkReturn = "line-start"
        m.state = "code-check"
        return true
      }
    }
  }
  m.state = "text"
  return true
}

export function stateFenceOpen(m: Machine): boolean {
  // ```markdown
  // > | ~~~js
  //     ^^^ counted as it arrives: the run is visible text whatever it turns out to be
  // ```
  if (!countRun(m)) return false
  // Neither a backtick nor a tilde starts an anchored opener: the anchored lookup is over.
  m.anchor = false
  if (m.runLen >= 3) {
    dropRuns(m)
    m.fenceLen = m.runLen
    if (m.runChar === TILDE) {
      m.fenceChar = TILDE
      m.state = "fence"
    } else m.state = "fence-info"
  } else {
    // Not a fence: backticks are an inline code run, tildes plain text.
    m.blockQuote = NO_QUOTE
    if (m.runChar === BACKTICK) addRun(m, m.runLen)
    m.state = "text"
  }
  return true
}

export function stateInlineRun(m: Machine): boolean {
  // ```markdown
  // > | see ``a`b`` here
  //         ^^ counted as it arrives; its length says which run closes it (CommonMark §6.1)
  // ```
  if (!countRun(m)) return false
  addRun(m, m.runLen)
  m.state = "text"
  return true
}

/**
 * Counts the run of `runChar` at `pos` into `runLen`, moving `pos` past it: the run is decided
 * text as it arrives, so a long run is never held and never read twice. A run is at most
 * `maxHold` long (the next character starts another run), as a window at its start would see it.
 * Returns false when the input ended inside the run (it may go on).
 */
function countRun(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  let k = m.runLen
  while (i < len && k < m.maxHold && m.buf.charCodeAt(i) === m.runChar) {
    i++
    k++
  }
  m.pos = i
  m.runLen = k
  return !(i === len && k < m.maxHold && !m.final)
}

/**
 * A list item opens with its marker at column `column`, its content at `content` (§5.2): the open
 * items whose content is right of the marker end, the others hold the new one (it is nested in
 * them), and their columns are kept for when it ends.
 */
function openItem(m: Machine, column: number, content: number): void {
  if (m.listIndent === 0) {
    if (m.lists !== undefined) m.lists.length = 0 // (ended by a line the prose scan skipped)
  } else {
    closeItemsTo(m, column)
    if (m.listIndent > 0) {
      if (m.lists === undefined) m.lists = []
      m.lists.push(m.listIndent)
    }
  }
  m.listIndent = content
}

/**
 * A line whose content is at column `column` and is no paragraph continuation (§5.2): the open
 * items whose content is right of it end; the innermost one left open is the line's.
 */
function closeItemsTo(m: Machine, column: number): void {
  while (m.listIndent > column) m.listIndent = m.lists?.pop() ?? 0
}

/**
 * A fence or an HTML block in a blockquote ended: the column of the list item the quote is in (or
 * 0) is the open item's again (the block's was its own item's, in the quote: `enterQuoted`).
 */
function endQuotedBlock(m: Machine): void {
  if (m.listIndent > 0) {
    // Closed by its own closer: its item goes on, and the quote's later lines are read against it.
    m.quoteList = m.listIndent
    m.quoteListDepth = m.blockQuote.length
  }
  m.blockQuote = NO_QUOTE
  m.listIndent = m.quoteOuter
}

/** What a code-span check reads its backtick runs as (in the run memo). */
const CHECK_RUN = Symbol("backtick run")

/** Longest list marker looked at: nine digits and `.` (CommonMark §5.2), then up to five columns. */
const MAX_ITEM = 15

/**
 * A list item's marker at `i` (`- `, `* `, `+ `, `1. `, `1) `, also with a tab after it), the marker
 * at column `column`: where to read on (`at`, at column `atColumn` from the marker) and the columns
 * from the marker to the item's content (`width`: what its continuation lines are indented by);
 * FAIL when there is none, or {@link MORE}. Tabs go to the next tab stop of four (§2.2).
 */
function listItemAt(m: Machine, i: number, column: number): Readonly<ListItem> | typeof FAIL | typeof MORE {
  const limit = Math.min(m.buf.length, i + MAX_ITEM)
  const fin = m.final || i + MAX_ITEM <= m.buf.length
  const c = m.buf.charCodeAt(i)
  let j = i
  if (c === 45 || c === 42 || c === 43)
    j++ // "-", "*", "+"
  else {
    while (j < limit && j - i < 9 && m.buf.charCodeAt(j) >= 48 && m.buf.charCodeAt(j) <= 57) j++
    if (j === i) return FAIL
    if (j === limit) return fin ? FAIL : MORE
    const d = m.buf.charCodeAt(j)
    if (d !== 46 && d !== 41) return FAIL // "." or ")"
    j++
  }
  const marker = j - i
  const from = column + marker
  j = skipIndent(m.buf, j, limit, from, from + 5)
  const col = indentColumn
  if (j === limit && !fin) return MORE
  const spaces = col - from
  if (spaces === 0) return FAIL
  // Five columns or more: the content starts one column after the marker (the rest is
  // indentation, read on from the marker's end).
  const wide = spaces > 4
  itemRead.at = wide ? i + marker : j
  itemRead.atColumn = wide ? marker : marker + spaces
  itemRead.width = wide ? marker + 1 : marker + spaces
  return itemRead
}

/** A list item's marker line: see {@link listItemAt}. */
interface ListItem {
  at: number
  atColumn: number
  width: number
}

/**
 * What {@link listItemAt} returns, read before its next call: one object, so a list line costs no
 * allocation (most lines of a list start with a marker).
 */
const itemRead: ListItem = { at: 0, atColumn: 0, width: 0 }

/**
 * Deepest blockquote whose code is followed (`> > > ```…`); a deeper one stays prose. With
 * {@link MAX_QUOTE_LINE} it bounds what a line start holds while its markers arrive.
 */
const MAX_QUOTE = 4

/**
 * Longest run of markers and indentation read at a quoted line's start (4 × 5 + 6); a line whose
 * code starts further in is read as prose (a code block's line: it goes on).
 */
const MAX_QUOTE_LINE = 26

/** The column {@link skipIndent} reached (read right after each call: no object per line). */
let indentColumn = 0

/**
 * Skips spaces and tabs from `i`, which stands at column `column` of its line (a tab goes to the
 * next tab stop of four, §2.2), until `end` or until the column reaches `stop`: returns the index
 * reached, and its column in {@link indentColumn}. Every column the Markdown states count is
 * counted here, from the line's own columns, so tab stops fall where CommonMark puts them.
 */
function skipIndent(buf: string, i: number, end: number, column: number, stop: number): number {
  for (; i < end && column < stop; i++) {
    const c = buf.charCodeAt(i)
    if (c === SPACE) column++
    else if (c === TAB) column += 4 - (column & 3)
    else break
  }
  indentColumn = column
  return i
}

/**
 * Where {@link afterMarker} left the line: the index after a `>` and its optional space, that
 * index's column, and the columns of indentation already read there (what is left of a tab after
 * the `>` once the optional space took one of its columns, §5.1, §2.2). The quote's content
 * starts `markerIndent` columns left of `markerColumn`.
 */
let markerAt = 0
let markerColumn = 0
let markerIndent = 0

/**
 * Reads past a blockquote marker whose `>` is at `i`, column `column`: one space, or one column
 * of a tab, is the marker's own (§5.1); see {@link markerAt}. Returns false when the input ends
 * right after the `>` and may go on (`fin`: it does not).
 */
function afterMarker(buf: string, i: number, column: number, end: number, fin: boolean): boolean {
  const j = i + 1
  if (j === end && !fin) return false
  const c = j < end ? buf.charCodeAt(j) : LF
  if (c === TAB) {
    // ```markdown
    // > | >→→<tool_call>
    //      ^ one column of the tab is the marker's space, its other two indent the content
    // ```
    markerAt = j + 1
    markerColumn = column + 1 + 4 - ((column + 1) & 3)
    markerIndent = markerColumn - column - 2
  } else {
    markerAt = c === SPACE ? j + 1 : j
    markerColumn = c === SPACE ? column + 2 : column + 1
    markerIndent = 0
  }
  return true
}

/**
 * After the blockquote markers of an open code block from `i` (the line's start), one per entry of
 * `gaps`, each after at most that many columns of indentation (three, plus the list item's content
 * column it stands at in the container before it, §5.1, §5.2), with its optional space: the index
 * there (with {@link markerColumn} and {@link markerIndent} set), FAIL when the line lacks them, or
 * {@link MORE}.
 */
function quoteMarkers(m: Machine, i: number, gaps: readonly number[]): number {
  const end = Math.min(m.buf.length, i + MAX_QUOTE_LINE)
  const fin = m.final || i + MAX_QUOTE_LINE <= m.buf.length
  markerAt = i
  markerColumn = 0
  markerIndent = 0
  for (const gap of gaps) {
    const from = markerColumn - markerIndent // where the enclosing content starts
    const j = skipIndent(m.buf, markerAt, end, markerColumn, from + gap + 1)
    if (j === end) return fin ? FAIL : MORE
    if (indentColumn - from > gap || m.buf.charCodeAt(j) !== GT) return FAIL
    if (!afterMarker(m.buf, j, indentColumn, end, fin)) return MORE
  }
  return markerAt
}

/**
 * What a blockquote's line holds after its markers (§5.1), when it is not prose: a fence or an HTML
 * block of kind 1 (also in list items in the quote, `item` the innermost one's content column in the
 * innermost quote, §5.2; `gaps` what its lines' markers may stand after, see {@link quoteMarkers}),
 * indented code (§4.4), or nothing (a blank line in the quote). `at` is where the block starts (for a
 * blank line: the next line's start; for an HTML block: after its tag name). Prose is FAIL (see
 * {@link quotedProse}).
 */
type QuotedBlock =
  | {
      readonly kind: "fence" | "html"
      readonly depth: number
      readonly at: number
      readonly item: number
      /** The content column of the item holding `item`'s, in the same quote (0: none or not known). */
      readonly outer: number
      readonly gaps: readonly number[]
    }
  | { readonly kind: "indented"; readonly depth: number; readonly at: number; readonly item: number }
  | { readonly kind: "blank"; readonly depth: number; readonly at: number }

/**
 * The deepest list item {@link quotedBlockAt} read that holds a quote on its line: the depth of the
 * quote it is in (0: none) and its content column there.
 */
let lineListDepth = 0
let lineList = 0

/** The gaps of the quote markers read by {@link quotedBlockAt} (copied only for a code block). */
const gapsRead: number[] = [0, 0, 0, 0]

/**
 * The blockquote line at `i` (its first `>`, at column `column`; `outer` the content column of the
 * list item it stands in, 0: none): what its content opens, or {@link MORE}. The content may nest
 * list items and quotes (`> - > ```…`, §5.1, §5.2); columns count from the innermost quote's
 * content (after its optional space: one column of a tab after `>`, the rest indents), tabs to the
 * line's tab stops (§2.2).
 */
function quotedBlockAt(
  m: Machine,
  i: number,
  column: number,
  outer: number,
): QuotedBlock | typeof FAIL | typeof MORE {
  const end = Math.min(m.buf.length, i + MAX_QUOTE_LINE)
  const fin = m.final || i + MAX_QUOTE_LINE <= m.buf.length
  let depth = 0
  let item = outer // the content column of the innermost list item in the innermost quote (0: none)
  let around = 0 // the content column of the item holding that one, in the same quote (0: none)
  lineListDepth = 0
  let j = i
  let at = column // the column of `j`
  let pre = 0 // columns of indentation before `j` (the rest of a tab after `>`)
  for (;;) {
    // Indented code is four columns past the content of a list item the quote holds (§5.2): one
    // opened on this line, or on an earlier quoted line.
    const held = item === 0 && depth === m.quoteListDepth ? m.quoteList : 0
    const code = 4 + held
    const k = skipIndent(m.buf, j, end, at, at - pre + code)
    const col = pre + indentColumn - at
    if (k === end) return fin ? quotedProse(m, depth, item) : MORE
    const c = m.buf.charCodeAt(k)
    // (A quote marker stands at most three columns into the quote's content, or into the content
    // of the list item an earlier line opened in it.)
    if (c === GT && col < code && (col <= 3 || col >= held)) {
      if (depth === MAX_QUOTE) return quotedProse(m, depth, item)
      const holder = item > 0 ? item : col >= held ? held : 0
      if (holder > 0) {
        // ```markdown
        // > | > - > x
        //       ^ a list item holding a quote: its column is what the outer quote's later lines are read against
        // ```
        lineListDepth = depth
        lineList = holder
      }
      gapsRead[depth++] = holder + 3
      item = 0
      around = 0
      if (!afterMarker(m.buf, k, indentColumn, end, fin)) return MORE
      j = markerAt
      at = markerColumn
      pre = markerIndent
      continue
    }
    if (c === LF) return { kind: "blank", depth, at: k + 1 }
    if (c === CR) {
      if (k + 1 === end) return fin ? quotedProse(m, depth, item) : MORE
      return m.buf.charCodeAt(k + 1) === LF
        ? { kind: "blank", depth, at: k + 2 }
        : quotedProse(m, depth, item)
    }
    if (col >= code) {
      // ```markdown
      // > | >     <tool_call>
      //           ^ four columns into the quote's content: indented code, unless a paragraph goes on
      // ```
      return m.para && m.paraQuote >= depth
        ? quotedProse(m, depth, item)
        : { kind: "indented", depth, at: k, item }
    }
    if (c === BACKTICK || c === TILDE) {
      if (k + 3 > end) return fin ? quotedProse(m, depth, item) : MORE
      if (m.buf.charCodeAt(k + 1) !== c || m.buf.charCodeAt(k + 2) !== c) return quotedProse(m, depth, item)
      return codeBlock("fence", k, depth, item, around, held, col)
    }
    if (c === LT) {
      // ```markdown
      // > | > <pre>
      //       ^ an HTML block of kind 1 in a quote: code until its closing tag or the quote's end (§4.6)
      // ```
      const r = htmlBlockAt(m, k)
      if (r === MORE) return MORE
      if (r === FAIL) return quotedProse(m, depth, item)
      return codeBlock("html", r, depth, item, around, held, col)
    }
    if (k + MAX_ITEM > i + MAX_QUOTE_LINE) return quotedProse(m, depth, item)
    const r = listItemAt(m, k, indentColumn)
    if (r === MORE) return MORE
    if (r === FAIL) return quotedProse(m, depth, item)
    // An item opening with indented code (five columns or more after its marker).
    if (r.atColumn !== r.width) return { kind: "indented", depth, at: r.at, item: item + col + r.width }
    around = item > 0 ? item : col >= held ? held : 0
    item += col + r.width
    j = r.at
    at = indentColumn + r.atColumn
    pre = 0
  }
}

/**
 * The list items a code block at column `col` of a quote is in: the innermost (`item`, opened on
 * its line, or `held`, an earlier line's, when it stands in its content), and the one around it.
 */
function blockItems(
  item: number,
  around: number,
  held: number,
  col: number,
): { item: number; outer: number } {
  if (item > 0) return { item, outer: around }
  return { item: col >= held ? held : 0, outer: 0 }
}

/** A fence or an HTML block a quoted line opens at `at`, `depth` quotes deep (see {@link blockItems}). */
function codeBlock(
  kind: "fence" | "html",
  at: number,
  depth: number,
  item: number,
  around: number,
  held: number,
  col: number,
): QuotedBlock {
  return { kind, depth, at, ...blockItems(item, around, held, col), gaps: gapsRead.slice(0, depth) }
}

/**
 * A blockquote line that is prose, `depth` quotes deep, opening a list item whose content is at
 * `item` (0: none): notes its paragraph (a quoted line as deep or shallower continues it, §5.1,
 * lazy) and its list (§5.2). Returns FAIL (prose needs no other result: no object per line).
 */
function quotedProse(m: Machine, depth: number, item: number): typeof FAIL {
  if (!(m.para && m.paraQuote >= depth)) m.paraQuote = depth
  noteQuotedList(m, depth, item)
  return FAIL
}

/**
 * The list item a quoted line opened, at the innermost quote (`depth`, content column `item`, 0:
 * none), or one holding a deeper quote on the line ({@link lineList}): what the quote's later lines
 * are indented from (§5.2).
 */
function noteQuotedList(m: Machine, depth: number, item: number): void {
  if (item > 0) {
    m.quoteList = item
    m.quoteListDepth = depth
  } else if (lineListDepth > 0) {
    m.quoteList = lineList
    m.quoteListDepth = lineListDepth
  }
}

/** Opens what a blockquote's line holds (see {@link quotedBlockAt}). */
function enterQuoted(m: Machine, quoted: QuotedBlock): boolean {
  m.pos = quoted.at
  m.paraQuote = quoted.depth
  if (quoted.kind === "blank") {
    // A blank line in the quote ends its paragraph (§5.1).
    dropRuns(m)
    m.para = false
    m.lineIndent = 0
    return true
  }
  m.anchor = false
  dropRuns(m)
  noteQuotedList(m, quoted.depth, quoted.item)
  if (quoted.kind === "indented") {
    // Its lines each come back to `line-start`, and its quote's markers (or their absence) decide.
    m.state = "indented-code"
    return true
  }
  // ```markdown
  // > | > - ```json
  //         ^ a fence or an HTML block in a blockquote is code (§5.1); its lines carry the quote's
  //           markers, then the item's indentation (§5.2)
  // ```
  m.blockQuote = quoted.gaps
  m.quoteOuter = m.listIndent // (the list item the quote is in: its column again when the block ends)
  m.listIndent = quoted.item
  if (quoted.outer > 0) {
    // While the block is open its item's column is `listIndent`; what the quote's lines are read
    // against when a line left of it ends the item is the one around it.
    m.quoteList = quoted.outer
    m.quoteListDepth = quoted.depth
  } else if (quoted.item > 0 && m.quoteListDepth === quoted.depth) m.quoteList = 0
  if (quoted.kind === "html") {
    m.state = "html-block"
    return true
  }
  m.runChar = m.buf.charCodeAt(quoted.at)
  m.runLen = 0
  m.state = "fence-open"
  return true
}

/** The tags that open an HTML block of kind 1 (and `<code>`, which models use the same way). */
const HTML_CODE_TAGS: readonly string[] = ["textarea", "script", "style", "code", "pre"]

/**
 * An HTML block start at `i` (`<pre`, `<script`… any case, then a space, `>` or the line's end):
 * the end of the tag name, FAIL, or {@link MORE}. Sets `htmlClose`.
 */
function htmlBlockAt(m: Machine, i: number): number {
  const limit = Math.min(m.buf.length, i + 10)
  const fin = m.final || i + 10 <= m.buf.length
  for (const tag of HTML_CODE_TAGS) {
    const end = i + 1 + tag.length
    let k = 0
    while (k < tag.length && i + 1 + k < limit && lower(m.buf.charCodeAt(i + 1 + k)) === tag.charCodeAt(k))
      k++
    if (k < tag.length) {
      if (i + 1 + k === limit && !fin) return MORE
      continue
    }
    if (end === limit) {
      if (!fin) return MORE
      if (end < m.buf.length) continue
    } else {
      const after = m.buf.charCodeAt(end)
      if (!(after === SPACE || after === TAB || after === GT || after === LF || after === 13)) continue
    }
    m.htmlClose = `</${tag}>`
    m.htmlDone = false
    return end
  }
  return FAIL
}

function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c
}

/**
 * The rest of a code line from `pos`: the index of its line feed, or -1 (the line goes on past the
 * input). Inside reasoning a closer ends the block even here (a special token): then -2, the
 * reasoning block closed and the state is `text`.
 */
function codeLine(m: Machine): number {
  const len = m.buf.length
  let i = m.pos
  if (m.reasoning === undefined) {
    const j = m.buf.indexOf("\n", i)
    m.pos = j < 0 ? len : j
    return j
  }
  const trigger = m.reasoning.fenceTrigger
  for (;;) {
    while (i < len && !(m.buf.charCodeAt(i) < 128 && trigger[m.buf.charCodeAt(i)] !== 0)) i++
    m.pos = i
    if (i === len) return -1
    if (m.buf.charCodeAt(i) === LF) return i
    const hit = matchClose(m, m.reasoning.close, i)
    if (hit === MORE) return -1
    if (hit !== FAIL) {
      m.fenceChar = 0
      if (m.blockQuote.length > 0) endQuotedBlock(m)
      m.htmlClose = ""
      m.state = "text"
      closeReasoning(m, hit.close.peek ? i : hit.end)
      return -2
    }
    i++
  }
}

export function stateIndentedCode(m: Machine): boolean {
  // ```markdown
  // > |     <function=read_file>
  //             ^ skipped to the line's end; the next line decides whether the block goes on
  // ```
  const at = codeLine(m)
  if (at === -1) return false
  if (at === -2) return true
  m.pos = at + 1
  m.lineIndent = 0
  m.para = false
  m.state = "line-start"
  return true
}

export function stateHtmlBlock(m: Machine): boolean {
  // ```markdown
  // > | <pre><function=read_file>
  //          ^ looking for `</pre>` (any case) on this line or a later one; the block ends with that line
  // ```
  for (;;) {
    const from = m.pos
    const at = codeLine(m)
    if (at === -2) return true
    const end = at === -1 ? m.pos : at
    if (!m.htmlDone) {
      const r = findClose(m, from, end, at === -1)
      if (r === MORE) return false
      m.htmlDone = r !== FAIL
    }
    if (at === -1) return false
    m.pos = at + 1
    m.lineIndent = 0
    if (m.htmlDone) {
      m.htmlClose = ""
      if (m.blockQuote.length > 0) endQuotedBlock(m)
      m.para = false
      m.state = "line-start"
      return true
    }
    if (m.blockQuote.length > 0) {
      // In a blockquote: the next line's markers and indentation decide whether the block goes on.
      m.state = "code-quote"
      return true
    }
    if (m.listIndent > 0) {
      // In a list item: the next line's indentation decides whether the block goes on.
      m.state = "html-line-start"
      return true
    }
  }
}

export function stateHtmlLineStart(m: Machine): boolean {
  // ```markdown
  //   | - <pre>
  // > | <tool_call>
  //     ^ left of the item's content: not a line of the item (an HTML block's lines are never lazy,
  //       §5.2), so the item ends, and its HTML block with it, as its fence would (§4.6)
  // ```
  const len = m.buf.length
  const i = readIndent(m)
  if (i === len) return false
  const c = m.buf.charCodeAt(i)
  if (m.lineIndent < m.listIndent && c !== LF && c !== CR) {
    m.htmlClose = ""
    closeItemsTo(m, m.lineIndent)
    m.para = false
    m.state = "line-start"
    return true
  }
  m.state = "html-block"
  return true
}

/**
 * The end tags that end an HTML block of kind 1, whichever of them opened it (`<pre>` … `</style>`
 * ends the block, §4.6); a `<code>` block (not kind 1) ends only at its own.
 */
const KIND_1_CLOSERS: readonly string[] = ["</pre>", "</script>", "</style>", "</textarea>"]
const CODE_CLOSERS: readonly string[] = ["</code>"]

/**
 * The open HTML block's closing tag in `buf[from, end)` (any case): its end, FAIL, or MORE when
 * it may straddle the end of the input (then `pos` is at its start, which stays undecided).
 */
function findClose(m: Machine, from: number, end: number, open: boolean): number {
  const tags = m.htmlClose === "</code>" ? CODE_CLOSERS : KIND_1_CLOSERS
  for (let i = m.buf.indexOf("<", from); i >= 0 && i < end; i = m.buf.indexOf("<", i + 1)) {
    let cut = false
    for (const tag of tags) {
      let k = 1
      while (k < tag.length && i + k < end && lower(m.buf.charCodeAt(i + k)) === tag.charCodeAt(k)) k++
      if (k === tag.length) return i + k
      if (i + k === end) cut = true
    }
    if (cut && open && !m.final) {
      m.pos = i
      return MORE
    }
  }
  return FAIL
}

/** A backtick run of length `k` outside fences: opens or closes an inline code candidate. */
export function addRun(m: Machine, k: number): void {
  if (m.runs === NO_RUNS) {
    // The paragraph's first run: its own list (the shared empty one is never written).
    m.runs = [k]
    return
  }
  const runs = m.runs as number[]
  const at = runs.indexOf(k)
  if (at >= 0) {
    // It closes the first open run of its length; runs opened after that one were inside the span.
    // (Popped, not cut by `length`: setting an array's length calls into the runtime, and the list
    // holds at most MAX_RUNS.)
    while (runs.length > at) runs.pop()
    m.codeUntil = -1
  } else if (runs.length < MAX_RUNS) runs.push(k)
}

export function stateCodeCheck(m: Machine): boolean {
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
      // A run cut off by the window's end is read on from where it was cut, not again.
      let j = resumeRun(m, CHECK_RUN, i, limit)
      while (j < limit && m.buf.charCodeAt(j) === BACKTICK) j++
      noteRun(m, CHECK_RUN, i, j)
      if (j === limit && !fin) break
      if (m.runs.includes(j - i)) {
        // Some open run closes: the marker is inside a code span.
        m.codeUntil = m.base + i
        m.state = m.checkReturn
        return true
      }
      i = j
    } else if (c === LF) {
      let j = i + 1
      while (j < limit && isBlank(m.buf.charCodeAt(j))) j++
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
  dropRuns(m)
  m.state = m.checkReturn
  return true
}

export function stateFenceInfo(m: Machine): boolean {
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
    m.state = fenceLineState(m)
    return true
  }
  // Not a fence: the opening run is an inline code run.
  m.blockQuote = NO_QUOTE
  addRun(m, m.fenceLen)
  m.state = "text"
  return true
}

export function stateFence(m: Machine): boolean {
  const at = codeLine(m)
  if (at === -1) return false
  if (at === -2) return true
  m.pos = at + 1
  m.lineIndent = 0
  m.state = fenceLineState(m)
  return true
}

/** Where a line of the open fence starts: at its quote's markers when it is in a blockquote. */
function fenceLineState(m: Machine): "fence-line-start" | "code-quote" {
  return m.blockQuote.length > 0 ? "code-quote" : "fence-line-start"
}

export function stateCodeQuote(m: Machine): boolean {
  // ```markdown
  //   | > - ```
  // > | >   <tool_call>
  //     ^^^^ the quote's markers first, then the indentation of its list item's content: a line
  //          without the markers ends the quote, one left of the item's content ends the item, and
  //          either ends the code block in it (its lines are never lazy, §5.1, §5.2)
  // ```
  const i = m.pos
  const j = quoteMarkers(m, i, m.blockQuote)
  if (j === MORE) return false
  let left = -1 // the line's column in the innermost quote, when it has all the quote's markers
  if (j !== FAIL) {
    const end = Math.min(m.buf.length, i + MAX_QUOTE_LINE)
    const k = skipIndent(m.buf, j, end, markerColumn, Infinity)
    if (k === end && !(m.final || i + MAX_QUOTE_LINE <= m.buf.length)) return false
    const col = markerIndent + indentColumn - markerColumn
    // (Indentation past the window: far right of any item's content, a line of the block.)
    const c = k < end ? m.buf.charCodeAt(k) : SPACE
    // (A fence's closer left of the item's content still closes it, as outside quotes.)
    if (col >= m.listIndent || c === LF || c === CR || (m.fenceChar !== 0 && c === m.fenceChar)) {
      m.pos = k
      m.lineIndent = col
      m.state = m.fenceChar !== 0 ? "fence-line-start" : "html-block"
      return true
    }
    left = col
  }
  // The line is read again from its start, outside the block.
  m.fenceChar = 0
  m.htmlClose = ""
  // The block's list item ended (the line is left of its content), or its quote did: an item
  // around it in the quote goes on when the line stands in its content (`enterQuoted`).
  if (m.quoteListDepth >= m.blockQuote.length && left < m.quoteList) m.quoteList = 0
  m.listIndent = 0
  endQuotedBlock(m)
  m.para = false
  m.lineIndent = 0
  m.state = "line-start"
  return true
}

export function stateFenceLineStart(m: Machine): boolean {
  const len = m.buf.length
  const i = readIndent(m)
  if (i === len) return false
  const c = m.buf.charCodeAt(i)
  if (c === LF) {
    m.lineIndent = 0
    m.pos = i + 1
    m.state = fenceLineState(m)
    return true
  }
  if (m.lineIndent - m.listIndent <= 3 && c === m.fenceChar) {
    // (Also a run left of the item's content: strictly it ends the item and opens a fence of its
    // own, §5.2, but models close an item's fence at the margin, and a closer is read as one.)
    m.closeRun = 0
    m.state = "fence-close"
  } else if (m.lineIndent < m.listIndent && c !== CR && m.blockQuote.length === 0) {
    // ```markdown
    //   | - ```
    // > | <tool_call>
    //     ^ left of the item's content: not a line of the item, and a fence's line is never lazy
    //       (§5.2; laziness is for paragraph continuation text only): the item ends, and its fence
    //       with it. The line is read as a line start (`listIndent` was recorded when the fence
    //       opened; `stateText` keeps it current on the lines it skips).
    // ```
    m.fenceChar = 0
    closeItemsTo(m, m.lineIndent)
    m.para = false
    m.state = "line-start"
  } else m.state = "fence"
  return true
}

export function stateFenceClose(m: Machine): boolean {
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

export function stateFenceCloseTail(m: Machine): boolean {
  const len = m.buf.length
  let i = m.pos
  while (i < len && isBlank(m.buf.charCodeAt(i))) i++
  m.pos = i
  if (i === len) return false
  if (m.buf.charCodeAt(i) === LF) {
    m.fenceChar = 0
    if (m.blockQuote.length > 0) endQuotedBlock(m)
    dropRuns(m)
    m.lineIndent = 0
    m.pos = i + 1
    m.state = "line-start"
  } else m.state = "fence"
  return true
}

/**
 * Reads the indentation of a line (at its start, or inside a block) from `pos` into `lineIndent` (a
 * tab to the next tab stop, §2.2) and moves `pos` past it: where the line's content starts, or the
 * end of the input.
 */
function readIndent(m: Machine): number {
  const i = skipIndent(m.buf, m.pos, m.buf.length, m.lineIndent, Infinity)
  m.lineIndent = indentColumn
  m.pos = i
  return i
}
