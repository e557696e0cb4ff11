/**
 * The `markup-pythonic` state: inside Python call syntax (`[f(a=1), g()]`, or one call a line).
 * A call name before `(` at the call depth starts a call; a keyword argument (`key=`) makes it
 * `structured`; the list ends where its bracket closes, or at the envelope's closer; a bare call
 * (Granite's line, no envelope) where its own `)` closes.
 *
 * ```markdown
 * > | [get_weather(city="Paris"), get_time()]
 *      ^ call      ^ structure    ^ call    ^ list ends: markup-tail
 * ```
 */

import {
  APOSTROPHE,
  BACKSLASH,
  EQUALS,
  LBRACE,
  LBRACKET,
  LPAREN,
  QUOTE,
  RBRACE,
  RBRACKET,
  RPAREN,
} from "./char-codes.ts"
import { closerAt, currentCall, reasoningCloser } from "./emit.ts"
import { type Draft, MAX_NAME, type Machine } from "./machine.ts"
import { normalize } from "./match.ts"
import { noteRun, resumeRun } from "./run-memo.ts"

/** What a pythonic name is read as (in the run memo). */
const IDENT_RUN = Symbol("Python identifier")

export function statePythonic(m: Machine, d: Draft): boolean {
  const spec = d.body.spec
  const lines = spec.kind === "pythonic" && spec.lines
  const bare = spec.kind === "pythonic" && spec.bare === true
  const callDepth = lines ? 0 : 1
  const trigger = d.body.valueTrigger
  const closing = reasoningCloser(m, d)
  const len = m.buf.length
  let i = m.pos
  while (i < len) {
    const c = m.buf.charCodeAt(i)
    if (d.jLex !== "code") {
      if (d.jLex === "escape") d.jLex = "string"
      else if (c === BACKSLASH) d.jLex = "escape"
      else if (c === d.jQuote) d.jLex = "code"
      i++
      continue
    }
    if ((d.jDepth === callDepth || d.jDepth === callDepth + 1) && isIdentStart(c)) {
      const span = Math.min(MAX_NAME, m.maxHold)
      const limit = Math.min(len, i + span)
      let j = Math.max(i + 1, resumeRun(m, IDENT_RUN, i, limit))
      while (j < limit && isIdentPart(m.buf.charCodeAt(j))) j++
      if (j === limit && !(m.final || i + span <= len)) {
        // Read on from here when more arrives, not again from the name's start.
        noteRun(m, IDENT_RUN, i, j)
        m.pos = i
        return false
      }
      if (d.jDepth > callDepth) {
        // `key=` inside a call's parentheses: a keyword argument, the pythonic parameter tag.
        if (j < len && m.buf.charCodeAt(j) === EQUALS) {
          const call = currentCall(d)
          if (call !== undefined) call.structured = true
        }
        i = j
        continue
      }
      if (j < len && m.buf.charCodeAt(j) === LPAREN) {
        let fn = m.buf.slice(i, j)
        if (fn.endsWith(".call")) fn = fn.slice(0, -5) // Llama 3.1 built-ins: `brave_search.call(`
        d.calls.push({ name: normalize(m, fn), start: m.base + i, structured: false, args: false })
        d.jDepth++
        i = j + 1
        continue
      }
      i = j
      continue
    }
    if (c === QUOTE || c === APOSTROPHE) {
      d.jLex = "string"
      d.jQuote = c
    } else if (c === LPAREN || c === LBRACKET || c === LBRACE) d.jDepth++
    else if (c === RPAREN || c === RBRACKET || c === RBRACE) {
      d.jDepth--
      if (c === RPAREN && d.jDepth === callDepth) {
        const call = currentCall(d)
        if (call !== undefined) call.structured = true
      }
      if (bare && d.jDepth <= 0) {
        // A bare call ends at its close; `markup-tail` reads what follows (`, NEXT(`, `]`).
        m.pos = i + 1
        m.state = "markup-tail"
        d.tail = "value-after"
        return true
      }
      if (!lines && d.jDepth <= 0) {
        m.pos = i + 1
        m.state = "markup-tail"
        d.tail = "value-after"
        return true
      }
    } else if (c < 128 && (trigger[c] !== 0 || (closing !== undefined && closing[c] !== 0))) {
      const r = closerAt(m, d, i)
      if (r !== "none") return r === "ended"
    }
    i++
  }
  m.pos = len
  return false
}

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

export function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 46
}
