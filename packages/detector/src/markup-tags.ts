/**
 * The `markup-tags` state: inside a call written in literal tags (XML-ish and special-token
 * formats). It skips to the next literal of the body and acts on it: a call header starts a
 * call, a parameter tag makes the call `structured`, a call's own close ends a bare call, the
 * envelope's closer ends the markup.
 *
 * ```markdown
 * > | <tool_call>⏎<function=read_file>⏎<parameter=path>⏎a.ts⏎</parameter>
 *                 ^ call               ^ structure      ^ skipped to the next literal
 * ```
 */
import { currentCall, endMarkup, reasoningCloser } from "./emit.ts"
import type { Draft, Machine } from "./machine.ts"
import { closed } from "./markup-tail.ts"
import { matchBody, matchClose } from "./match.ts"
import { FAIL, MORE } from "./pattern.ts"
import { skipPlain } from "./skip-plain.ts"

export function stateTags(m: Machine, d: Draft): boolean {
  const body = d.body
  const len = m.buf.length
  const trigger = body.entries.trigger
  const closing = reasoningCloser(m, d)
  let i = m.pos
  for (;;) {
    if (closing === undefined) i = skipPlain(m.buf, i, body.scan, m)
    else {
      for (; i < len; i++) {
        const c = m.buf.charCodeAt(i)
        if (c < 128 ? trigger[c] !== 0 || closing[c] !== 0 : body.scan.wideFirsts.includes(c)) break
      }
    }
    m.pos = i
    if (i >= len) return false
    if (closing !== undefined) {
      const close = matchClose(m, m.reasoning!.close, i)
      if (close === MORE) return false
      if (close !== FAIL) {
        endMarkup(m, d, false)
        return true
      }
    }
    const hit = matchBody(m, body.entries, i)
    if (hit === MORE) return false
    if (hit === FAIL) {
      i++
      continue
    }
    const r = hit.end
    switch (hit.entry.role) {
      case "closer":
        return closed(m, d, r)
      case "call":
        d.calls.push({ name: hit.name, start: m.base + i, structured: d.row.structured, args: false })
        break
      case "structure": {
        const c = currentCall(d)
        if (c !== undefined) c.structured = true
        break
      }
      case "call-end": {
        const c = currentCall(d)
        if (c !== undefined) c.structured = true
        if (body.spec.kind === "tags" && body.spec.bare !== undefined) {
          m.pos = r
          m.state = "markup-tail"
          d.tail = "bare"
          return true
        }
        break
      }
      default:
        return hit.entry.role satisfies never
    }
    i = r
  }
}
