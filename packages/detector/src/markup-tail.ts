/**
 * The `markup-tail` state: between the parts of a call. After a header, a JSON payload may follow
 * (`value-start`); after a value, a closer, another value after `;`/`,`, or a glued next call
 * (`value-after`); after a bare call's close or an envelope's closer, an orphan or repeated closer
 * (`bare`). Anything else ends the markup right there.
 *
 * ```markdown
 * > | [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
 *                                  ^ value-start: the payload
 * > | <tool_call>{"name": "f", "arguments": {}}</tool_call>⏎</tool_call>
 *                                                          ^ bare: a repeated closer joins the call
 * ```
 */
import { NEXT_VALUE, SEPARATOR } from "./compile.ts"
import { currentCall, endMarkup, openMarkup } from "./emit.ts"
import { PAYLOAD_INTRODUCERS, PY_LIST_END, PY_NEXT } from "./format-table.ts"
import { type Draft, type Machine, resetValue } from "./machine.ts"
import { finalAt, limitAt, matchRow, streamEndAt } from "./match.ts"
import { FAIL, isSpace, MORE, match } from "./pattern.ts"

export function stateMarkupTail(m: Machine, d: Draft): boolean {
  const body = d.body
  const limit = limitAt(m, m.pos)
  const fin = finalAt(m, m.pos)
  if (d.tail === "bare") {
    for (const tail of body.tails) {
      const r = match(tail.pattern, m.buf, m.pos, limit, fin, m)
      if (r === MORE) return false
      if (r >= 0) {
        d.closing = true
        if (tail.format !== undefined) d.format = tail.format
        m.pos = r
        break
      }
    }
    endMarkup(m, d, true)
    return true
  }
  if (body.closer !== undefined) {
    const r = match(body.closer, m.buf, m.pos, limit, fin, m)
    if (r === MORE) return false
    if (r >= 0) return closed(m, d, r)
  }
  const json = body.spec.kind === "json"
  if (d.tail === "value-start" || (json && body.closer !== undefined)) {
    const r = match(NEXT_VALUE, m.buf, m.pos, limit, fin, m)
    if (r === MORE) return false
    if (r >= 0) {
      // A header that named the tool (`to=functions.NAME`, `NAME[ARGS]`) followed by its arguments.
      const call = currentCall(d)
      if (call !== undefined && body.spec.kind === "json" && body.spec.names === "none")
        call.structured = true
      m.pos = r
      resetValue(d)
      m.state = d.body.state
      return true
    }
  }
  if (
    streamEndAt(m, m.pos) &&
    (d.tail === "value-start" ? cutBeforePayload(m) : body.closerDue && afterSpace(m, m.pos) === m.buf.length)
  ) {
    // The stream ended between a call's header and its payload (the call is truncated), or after
    // the payload with the envelope still open (its closing marker never came): not complete.
    m.pos = m.buf.length
    endMarkup(m, d, false)
    return true
  }
  if (d.tail === "value-after" && d.row.glued) {
    // The next call glued to this one (`{…}>>>NAME`): this call ends, the next starts here.
    const hit = matchRow(m, d.row, m.pos)
    if (hit === MORE) return false
    if (hit !== FAIL) {
      const at = m.pos
      endMarkup(m, d, true)
      return openMarkup(m, at, d.row, hit.end, hit.name)
    }
  }
  if (d.tail === "value-after" && body.spec.kind === "pythonic" && body.spec.bare === true) {
    // A bare Python call: `, NEXT(` goes on to the next call; a `]` closing its list joins it.
    const next = match(PY_NEXT, m.buf, m.pos, limit, fin, m)
    if (next === MORE) return false
    if (next >= 0) {
      m.pos = next
      m.state = body.state
      return true
    }
    const close = match(PY_LIST_END, m.buf, m.pos, limit, fin, m)
    if (close === MORE) return false
    if (close >= 0) m.pos = close
    endMarkup(m, d, true)
    return true
  }
  if (d.tail === "value-after" && json) {
    // Llama 3.x separates calls with `;`; MiniMax M1 writes one object per line.
    const r = match(SEPARATOR, m.buf, m.pos, limit, fin, m)
    if (r === MORE) return false
    if (r >= 0) {
      const next = match(NEXT_VALUE, m.buf, r, limitAt(m, r), finalAt(m, r), m)
      if (next === MORE) return false
      if (next >= 0) {
        m.pos = next
        resetValue(d)
        m.state = d.body.state
        return true
      }
    }
    if (body.spec.bare !== undefined) {
      // A bare JSON call: an orphan envelope closer after it joins it.
      d.tail = "bare"
      return true
    }
  }
  endMarkup(m, d, true)
  return true
}

/**
 * The envelope's closer ends at `end`: the markup ends there, after absorbing a stray repeat of
 * the closer (models repeat it: `</tool_call>\n</tool_call>`; it is never the user's text).
 */
export function closed(m: Machine, d: Draft, end: number): boolean {
  d.closing = true
  m.pos = end
  m.state = "markup-tail"
  d.tail = "bare"
  return true
}

/** At the end of the stream: is the rest after `pos` blank, or a cut-off payload introducer? */
export function cutBeforePayload(m: Machine): boolean {
  const rest = m.buf.slice(afterSpace(m, m.pos))
  return rest === "" || PAYLOAD_INTRODUCERS.some((p) => p.startsWith(rest))
}

/** The first non-whitespace position at or after `i` (or the end of the buffer). */
function afterSpace(m: Machine, i: number): number {
  while (i < m.buf.length && isSpace(m.buf.charCodeAt(i))) i++
  return i
}
