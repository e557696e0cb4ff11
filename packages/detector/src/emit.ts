/** Releasing visible text, reporting markup, and opening/closing reasoning blocks and calls. */

import { LF } from "./char-codes.ts"
import type { CompiledReasoning } from "./compile.ts"
import type { OpenerRow } from "./format-table.ts"
import { type Call, type Draft, dropRuns, type Machine, offers } from "./machine.ts"
import { matchBody, matchClose } from "./match.ts"
import { FAIL, isSpace, MORE } from "./pattern.ts"

/** Releases `buf[textFrom, to)` as visible text. */
export function release(m: Machine, to: number): void {
  if (to <= m.textFrom) return
  if (m.unanswered !== undefined && m.reasoning === undefined) {
    for (let k = m.textFrom; k < to; k++) {
      const c = m.buf.charCodeAt(k)
      if (!(isSpace(c) || c === 0xa0 || c === 0xfeff || c === 0x3000)) {
        // A visible answer follows the closed reasoning blocks: their markup was a rehearsal.
        for (const b of m.unanswered) b.answered = true
        m.unanswered = undefined
        flushQueue(m)
        break
      }
    }
  }
  m.out = m.out.length === 0 ? m.buf.slice(m.textFrom, to) : m.out + m.buf.slice(m.textFrom, to)
  m.textFrom = to
  m.outEnd = m.base + to
}

/** Withholds `buf[textFrom, to)`: part of a call or an envelope token, never shown. */
export function withhold(m: Machine, to: number): void {
  if (to <= m.textFrom) return
  const start = m.base + m.textFrom
  const w = m.withheld
  // Adjacent spans merge: a call withheld over many pushes is one span per push.
  if (w === undefined) m.withheld = [start, m.base + to]
  else if (w[w.length - 1] === start) w[w.length - 1] = m.base + to
  else w.push(start, m.base + to)
  m.textFrom = to
}

export function flushQueue(m: Machine): void {
  const queue = m.queue
  if (queue === undefined) return
  let k = 0
  for (; k < queue.length; k++) {
    const q = queue[k]!
    if (q.block !== undefined && !q.block.answered && !m.ended) break
    m.found ??= []
    m.found.push({ ...q.markup, answerFollows: q.block?.answered ?? false })
  }
  if (k === queue.length) m.queue = undefined
  else if (k > 0) m.queue = queue.slice(k)
}

export function openReasoning(m: Machine, i: number, row: CompiledReasoning, end: number): boolean {
  release(m, i)
  m.templateReasoning = false
  m.reasoning = row
  m.block = { answered: false, marked: false }
  release(m, end)
  m.pos = end
  dropRuns(m)
  return true
}

/**
 * Closes the reasoning block whose closer is at `i` (the open one, or the one the chat template
 * opened: then there is no block, and the text before it was already shown as prose); scanning
 * resumes at `end` (`i` for a peek closer). The closer is shown, as the reasoning it ends is.
 */
export function closeReasoning(m: Machine, end: number): boolean {
  release(m, end)
  m.templateReasoning = false
  if (m.block?.marked) {
    m.unanswered ??= []
    m.unanswered.push(m.block)
  }
  m.reasoning = m.block = undefined
  m.pos = m.textFrom = end
  m.anchor = true
  dropRuns(m)
  return true
}

export function openMarkup(
  m: Machine,
  i: number,
  row: OpenerRow,
  end: number,
  name: string | undefined,
): boolean {
  release(m, i)
  // A Harmony message addressed to a function is a new message: the analysis before it is over.
  if (row.endsAnalysis && m.reasoning?.row.harmony) closeReasoning(m, i)
  m.anchor = false
  dropRuns(m)
  if (m.block !== undefined && m.reasoning !== undefined) m.block.marked = true
  const body = m.tables.bodies.get(row)!
  const d: Draft = {
    row,
    body,
    start: m.base + i,
    block: m.reasoning === undefined ? undefined : m.block,
    calls: [],
    closing: false,
    format: row.format,
    tail: "value-start",
    jDepth: 0,
    jCallDepth: 0,
    jLex: "code",
    jQuote: 0,
    jExpect: "none",
    jNameNext: false,
    jWrapNext: false,
    jInCall: false,
  }
  if (row.bodyAt !== 0 && name !== undefined)
    d.calls.push({ name, start: m.base + i, structured: row.structured, args: false })
  m.draft = d
  m.pos = row.bodyAt === undefined ? end : i + row.bodyAt
  withhold(m, m.pos)
  if (row.token !== undefined) {
    // A lone special token: withheld on its own; an opener or a call marker leaves its envelope open,
    // an empty envelope (its opener and closer) does not.
    const closes = row.token === "close" || row.token === "empty"
    d.closing = closes
    endMarkup(m, d, closes || row.token === "frame")
    return true
  }
  if (body.spec.kind === "json") {
    m.state = "markup-tail"
    d.tail = "value-start"
  } else m.state = body.state
  return true
}

/** Closes the open markup `d` at `pos`. */
export function endMarkup(m: Machine, d: Draft, complete: boolean): void {
  const end = m.base + m.pos
  const calls: Call[] =
    d.calls.length > 0 ? d.calls : [{ name: undefined, start: d.start, structured: false, args: false }]
  m.queue ??= []
  const queue = m.queue
  for (let k = 0; k < calls.length; k++) {
    const c = calls[k]!
    queue.push({
      block: d.block,
      markup: {
        format: d.format,
        toolName: c.name,
        offered: c.name !== undefined && offers(m, c.name),
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
  withhold(m, m.pos)
  m.lineIndent = 0
  // The call's line was not blank: an indented line right after it is no code block.
  m.para = true
  m.state = (m.pos > 0 ? m.buf.charCodeAt(m.pos - 1) : m.prevCode) === LF ? "line-start" : "text"
  flushQueue(m)
}

export function currentCall(d: Draft): Call | undefined {
  return d.calls[d.calls.length - 1]
}

/** The trigger table of the closer of the reasoning block the open call sits in (it ends the call, unconsumed). */
export function reasoningCloser(m: Machine, d: Draft): Uint8Array | undefined {
  return d.block !== undefined && m.reasoning !== undefined ? m.reasoning.close.trigger : undefined
}

/** What {@link closerAt} found: the markup `ended`, nothing that closes it (`none`), or the window needs `more`. */
export type CloserOutcome = "ended" | "none" | "more"

/** A reasoning closer (ends markup inside reasoning, unconsumed) or a body closer at `i`; `pos` is left at `i`. */
export function closerAt(m: Machine, d: Draft, i: number): CloserOutcome {
  m.pos = i
  if (d.block !== undefined && m.reasoning !== undefined) {
    const hit = matchClose(m, m.reasoning.close, i)
    if (hit === MORE) return "more"
    if (hit !== FAIL) {
      endMarkup(m, d, false)
      return "ended"
    }
  }
  const hit = matchBody(m, d.body.entries, i)
  if (hit === MORE) return "more"
  if (hit !== FAIL && hit.entry.role === "closer") {
    // Through `markup-tail`, which absorbs a stray repeat of the closer.
    d.closing = true
    m.pos = hit.end
    m.state = "markup-tail"
    d.tail = "bare"
    return "ended"
  }
  return "none"
}
