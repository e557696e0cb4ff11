/** The states inside a call (withheld): literal tags, JSON payloads, Python calls, and what may follow them. */

import {
  APOSTROPHE,
  BACKSLASH,
  COLON,
  COMMA,
  EQUALS,
  LBRACE,
  LBRACKET,
  LPAREN,
  QUOTE,
  RBRACE,
  RBRACKET,
  RPAREN,
} from "./char-codes.ts"
import { NEXT_VALUE, SEPARATOR } from "./compile.ts"
import { closerAt, currentCall, endMarkup, openMarkup, reasoningCloser } from "./emit.ts"
import { PAYLOAD_INTRODUCERS } from "./format-table.ts"
import { MAX_NAME, type Machine, resetValue } from "./machine.ts"
import { finalAt, limitAt, matchBody, matchClose, matchRow, normalize, streamEndAt } from "./match.ts"
import { FAIL, isSpace, MORE, match } from "./pattern.ts"
import { noteRun, resumeRun } from "./run-memo.ts"
import { skipPlain } from "./skip-plain.ts"

export function stateMarkup(m: Machine): boolean {
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

export function stateTags(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const len = m.buf.length
  const trigger = body.entries.trigger
  const closing = reasoningCloser(m)
  let i = m.pos
  for (;;) {
    if (closing === undefined) i = skipPlain(m.buf, i, body.scan, m.searches)
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
        return closed(m, r)
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

export function stateJson(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const names = body.spec.kind === "json" ? body.spec.names : "none"
  const len = m.buf.length
  const inString = body.stringTrigger
  const inValue = body.valueTrigger
  const closing = reasoningCloser(m)
  let i = m.pos
  while (i < len) {
    if (m.jLex === "escape") {
      m.jLex = "string"
      i++
      continue
    }
    if (m.jLex === "string") {
      let c = 0
      for (; i < len; i++) {
        c = m.buf.charCodeAt(i)
        if (c < 128 && (inString[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
      }
      if (i >= len) break
      if (c === BACKSLASH) m.jLex = "escape"
      else if (c === QUOTE) m.jLex = "code"
      else {
        const r = closerAt(m, i)
        if (r !== "none") return r === "ended"
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
          (m.jExpect === "key" || (m.jExpect === "value" && m.jNameNext))
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
        m.jLex = "string"
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
          m.jExpect = "key"
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
          m.jExpect = "key"
          m.jNameNext = false
        }
        break
      case COLON:
        if (m.jInCall && m.jDepth === m.jCallDepth) m.jExpect = "value"
        break
      default: {
        const r = closerAt(m, i)
        if (r !== "none") return r === "ended"
      }
    }
    i++
  }
  m.pos = len
  return false
}

/** The end quote of a short escape-free string at `i`, {@link MORE}, or FAIL (not a name). */
export function captureString(m: Machine, i: number): number {
  const span = Math.min(MAX_NAME + 2, m.maxHold)
  const limit = Math.min(m.buf.length, i + span)
  const fin = m.final || i + span <= m.buf.length
  // A string cut off by the window's end is read on from where it was cut, not again.
  let j = Math.max(i + 1, resumeRun(m.capture.runs, STRING_RUN, i, limit))
  for (; j < limit; j++) {
    const c = m.buf.charCodeAt(j)
    if (c === QUOTE) return j
    if (c === BACKSLASH) return FAIL
  }
  noteRun(m.capture.runs, STRING_RUN, i, j)
  return fin ? FAIL : MORE
}

/** What `captureString` and a pythonic name read their runs as (in the run memo). */
const STRING_RUN = Symbol("JSON string")
const IDENT_RUN = Symbol("Python identifier")

export function onJsonString(m: Machine, s: string, names: "keys" | "first-key" | "none"): void {
  const call = currentCall(m)
  if (call === undefined) return
  if (m.jExpect === "key") {
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
    m.jExpect = "none"
  } else {
    if (call.name === undefined) call.name = normalize(m, s)
    if (call.args) call.structured = true
    m.jNameNext = false
    m.jExpect = "none"
  }
}

export function statePythonic(m: Machine): boolean {
  const d = m.draft!
  const spec = d.body.spec
  const lines = spec.kind === "pythonic" && spec.lines
  const callDepth = lines ? 0 : 1
  const trigger = d.body.valueTrigger
  const closing = reasoningCloser(m)
  const len = m.buf.length
  let i = m.pos
  while (i < len) {
    const c = m.buf.charCodeAt(i)
    if (m.jLex !== "code") {
      if (m.jLex === "escape") m.jLex = "string"
      else if (c === BACKSLASH) m.jLex = "escape"
      else if (c === m.jQuote) m.jLex = "code"
      i++
      continue
    }
    if ((m.jDepth === callDepth || m.jDepth === callDepth + 1) && isIdentStart(c)) {
      const span = Math.min(MAX_NAME, m.maxHold)
      const limit = Math.min(len, i + span)
      let j = Math.max(i + 1, resumeRun(m.capture.runs, IDENT_RUN, i, limit))
      while (j < limit && isIdentPart(m.buf.charCodeAt(j))) j++
      if (j === limit && !(m.final || i + span <= len)) {
        // Read on from here when more arrives, not again from the name's start.
        noteRun(m.capture.runs, IDENT_RUN, i, j)
        m.pos = i
        return false
      }
      if (m.jDepth > callDepth) {
        // `key=` inside a call's parentheses: a keyword argument, the pythonic parameter tag.
        if (j < len && m.buf.charCodeAt(j) === EQUALS) {
          const call = currentCall(m)
          if (call !== undefined) call.structured = true
        }
        i = j
        continue
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
      m.jLex = "string"
      m.jQuote = c
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
      const r = closerAt(m, i)
      if (r !== "none") return r === "ended"
    }
    i++
  }
  m.pos = len
  return false
}

export function stateMarkupTail(m: Machine): boolean {
  const d = m.draft!
  const body = d.body
  const limit = limitAt(m, m.pos)
  const fin = finalAt(m, m.pos)
  if (m.tail === "bare") {
    for (const tail of body.tails) {
      const r = match(tail.pattern, m.buf, m.pos, limit, fin, m.capture)
      if (r === MORE) return false
      if (r >= 0) {
        d.closing = true
        if (tail.format !== undefined) d.format = tail.format
        m.pos = r
        break
      }
    }
    endMarkup(m, true)
    return true
  }
  if (body.closer !== undefined) {
    const r = match(body.closer, m.buf, m.pos, limit, fin, m.capture)
    if (r === MORE) return false
    if (r >= 0) return closed(m, r)
  }
  const json = body.spec.kind === "json"
  if (m.tail === "value-start" || (json && body.closer !== undefined)) {
    const r = match(NEXT_VALUE, m.buf, m.pos, limit, fin, m.capture)
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
  if (
    streamEndAt(m, m.pos) &&
    (m.tail === "value-start" ? cutBeforePayload(m) : body.closerDue && afterSpace(m, m.pos) === m.buf.length)
  ) {
    // The stream ended between a call's header and its payload (the call is truncated), or after
    // the payload with the envelope still open (its closing marker never came): not complete.
    m.pos = m.buf.length
    endMarkup(m, false)
    return true
  }
  if (m.tail === "value-after" && d.row.glued) {
    // The next call glued to this one (`{…}>>>NAME`): this call ends, the next starts here.
    const r = matchRow(m, d.row, m.pos)
    if (r === MORE) return false
    if (r >= 0) {
      const at = m.pos
      const name = m.hitName
      endMarkup(m, true)
      return openMarkup(m, at, d.row, r, name)
    }
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

/**
 * The envelope's closer ends at `end`: the markup ends there, after absorbing a stray repeat of
 * the closer (models repeat it: `</tool_call>\n</tool_call>`; it is never the user's text).
 */
export function closed(m: Machine, end: number): boolean {
  m.draft!.closing = true
  m.pos = end
  m.state = "markup-tail"
  m.tail = "bare"
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

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

export function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 46
}
