import { closeReasoning, openMarkup } from "./emit.ts"
import { BACKTICK, dropRuns, isBlank, LF, MAX_RUNS, type Machine, SPACE, TAB, TILDE } from "./machine.ts"
import { finalAt, limitAt, matchClose, matchStart } from "./match.ts"
import { MORE } from "./pattern.ts"
import { noteRun, resumeRun } from "./run-memo.ts"

export function stateLineStart(m: Machine): boolean {
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
    dropRuns(m)
    m.lineIndent = 0
    m.pos = i + 1
    return true
  }
  if (m.lineIndent <= 3 && (c === BACKTICK || c === TILDE)) {
    m.runChar = c
    m.runLen = 0
    m.state = "fence-open"
    return true
  } else if (m.lineIndent <= 3 && c < 128 && m.tables.line.trigger[c] !== 0) {
    const r = matchStart(m, m.tables.line, i)
    if (r === MORE) return false
    if (r >= 0 && m.hitStart?.kind === "markup") return openMarkup(m, i, m.hitStart.row, r, m.hitName)
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

/** What a code-span check reads its backtick runs as (in the run memo). */
const CHECK_RUN = Symbol("backtick run")

/** A backtick run of length `k` outside fences: opens or closes an inline code candidate. */
export function addRun(m: Machine, k: number): void {
  const at = m.runs.indexOf(k)
  if (at >= 0) {
    // It closes the first open run of its length; runs opened after that one were inside the span.
    m.runs.length = at
    m.codeUntil = -1
  } else if (m.runs.length < MAX_RUNS) m.runs.push(k)
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
      let j = resumeRun(m.capture.runs, CHECK_RUN, i, limit)
      while (j < limit && m.buf.charCodeAt(j) === BACKTICK) j++
      noteRun(m.capture.runs, CHECK_RUN, i, j)
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
  m.state = "text"
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
    m.state = "fence-line-start"
    return true
  }
  // Not a fence: the opening run is an inline code run.
  addRun(m, m.fenceLen)
  m.state = "text"
  return true
}

export function stateFence(m: Machine): boolean {
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

export function stateFenceLineStart(m: Machine): boolean {
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
    dropRuns(m)
    m.lineIndent = 0
    m.pos = i + 1
    m.state = "line-start"
  } else m.state = "fence"
  return true
}
