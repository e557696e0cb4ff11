/**
 * The `markup-json` state: inside a call's JSON payload (Hermes, Llama, Mistral, Harmony…). A
 * lexical scan (strings, escapes, depth) that reads the call object's `"name"` (or first key) and
 * notes `"arguments"`/`"parameters"`/`"args"`; the payload ends where its outermost value closes, or at the
 * envelope's closer.
 *
 * ```markdown
 * > | <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>
 *                ^ call   ^ name       ^ structure                ^ value ends: markup-tail
 * ```
 */

import {
  APOSTROPHE,
  BACKSLASH,
  COLON,
  COMMA,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
} from "./char-codes.ts"
import { closerAt, currentCall, reasoningCloser } from "./emit.ts"
import { type Draft, MAX_NAME, type Machine } from "./machine.ts"
import { normalize } from "./match.ts"
import { FAIL, MORE } from "./pattern.ts"
import { noteRun, resumeRun } from "./run-memo.ts"

export function stateJson(m: Machine, d: Draft): boolean {
  const body = d.body
  const names = body.spec.kind === "json" ? body.spec.names : "none"
  const len = m.buf.length
  const inString = body.stringTrigger
  const inValue = body.valueTrigger
  const closing = reasoningCloser(m, d)
  // The depth of the call object (or of the list holding them) under a wrapper object.
  const level = body.spec.kind === "json" && body.spec.wrapped === true ? 2 : 1
  let i = m.pos
  while (i < len) {
    if (d.jLex === "escape") {
      d.jLex = "string"
      i++
      continue
    }
    if (d.jLex === "string") {
      let c = 0
      for (; i < len; i++) {
        c = m.buf.charCodeAt(i)
        if (c < 128 && (inString[c] !== 0 || (closing !== undefined && closing[c] !== 0))) break
      }
      if (i >= len) break
      if (c === BACKSLASH) d.jLex = "escape"
      // (Only a Python dict's lexer stops at `'`; its strings close with the quote that opened them.)
      else if (c === QUOTE || c === APOSTROPHE) {
        if (c === (d.jQuote === 0 ? QUOTE : d.jQuote)) d.jLex = "code"
      } else {
        const r = closerAt(m, d, i)
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
      case APOSTROPHE:
      case QUOTE: {
        // (`'` stops the scan only in a Python dict: RWKV's legacy calls.)
        d.jQuote = c
        if (
          names !== "none" &&
          d.jInCall &&
          d.jDepth === d.jCallDepth &&
          (d.jExpect === "key" || (d.jExpect === "value" && d.jNameNext))
        ) {
          const end = captureString(m, i, c)
          if (end === MORE) {
            m.pos = i
            return false
          }
          if (end >= 0) {
            onJsonString(m, d, m.buf.slice(i + 1, end), names)
            i = end + 1
            continue
          }
        }
        d.jLex = "string"
        break
      }
      case LBRACE:
      case LBRACKET: {
        d.jDepth++
        d.jNameNext = false
        const wrap = d.jWrapNext
        d.jWrapNext = false
        if (d.jDepth === level && d.jCallDepth === 0) d.jCallDepth = c === LBRACE ? level : level + 1
        if (c === LBRACE && wrap && d.jInCall && d.jDepth === d.jCallDepth + 1) {
          // OpenAI's shape, `{"type": "function", "function": {"name": …}}`: the object under
          // `"function"` is the call object; the call read so far is it, one level down (its
          // siblings in a list are read at this depth too).
          d.jCallDepth = d.jDepth
          d.jExpect = "key"
        } else if (c === LBRACE && d.jDepth === d.jCallDepth && names !== "none") {
          d.calls.push({ name: undefined, start: m.base + i, structured: false, args: false })
          d.jInCall = true
          d.jExpect = "key"
        }
        break
      }
      case RBRACE:
      case RBRACKET:
        if (c === RBRACE && d.jInCall && d.jDepth === d.jCallDepth) {
          const call = currentCall(d)
          if (call?.name !== undefined) call.structured = true
          d.jInCall = false
        }
        d.jDepth--
        if (d.jDepth <= 0) {
          m.pos = i + 1
          m.state = "markup-tail"
          d.tail = "value-after"
          return true
        }
        break
      case COMMA:
        if (d.jInCall && d.jDepth === d.jCallDepth) {
          d.jExpect = "key"
          d.jNameNext = d.jWrapNext = false
        }
        break
      case COLON:
        if (d.jInCall && d.jDepth === d.jCallDepth) d.jExpect = "value"
        break
      default: {
        const r = closerAt(m, d, i)
        if (r !== "none") return r === "ended"
      }
    }
    i++
  }
  m.pos = len
  return false
}

/** The end quote of a short escape-free string at `i`, {@link MORE}, or FAIL (not a name). */
export function captureString(m: Machine, i: number, quote: number = QUOTE): number {
  const span = Math.min(MAX_NAME + 2, m.maxHold)
  const limit = Math.min(m.buf.length, i + span)
  const fin = m.final || i + span <= m.buf.length
  // A string cut off by the window's end is read on from where it was cut, not again.
  let j = Math.max(i + 1, resumeRun(m, STRING_RUN, i, limit))
  for (; j < limit; j++) {
    const c = m.buf.charCodeAt(j)
    if (c === quote) return j
    if (c === BACKSLASH) return FAIL
  }
  noteRun(m, STRING_RUN, i, j)
  return fin ? FAIL : MORE
}

/** What `captureString` reads its runs as (in the run memo). */
const STRING_RUN = Symbol("JSON string")

export function onJsonString(m: Machine, d: Draft, s: string, names: "keys" | "first-key" | "none"): void {
  const call = currentCall(d)
  if (call === undefined) return
  if (d.jExpect === "key") {
    if (names === "first-key") {
      if (call.name === undefined) {
        call.name = normalize(m, s)
        call.structured = true
      }
    } else if (s === "name" || s === "tool_name") d.jNameNext = true
    else if (s === "function" || s === "tool_call") d.jWrapNext = call.name === undefined
    // `"args"`: Inkling's key for them.
    else if (s === "arguments" || s === "parameters" || s === "args") {
      call.args = true
      if (call.name !== undefined) call.structured = true
    }
    d.jExpect = "none"
  } else {
    if (call.name === undefined) call.name = normalize(m, s)
    if (call.args) call.structured = true
    d.jNameNext = false
    d.jExpect = "none"
  }
}
