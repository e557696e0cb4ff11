import { fc, it } from "@fast-check/vitest"
import { util } from "undici"
import { describe, expect } from "vitest"
import { clientResponseHeaders, keptResponseHeaders, upstreamRequestHeaders } from "../src/forward-headers.ts"
import { FieldList, headerFields, webHeaders } from "../src/response-headers.ts"

/** Header names a client may send, in any case: end-to-end, hop-by-hop, the proxy's own, odd ones. */
const name = fc
  .tuple(
    fc.constantFrom(
      "authorization",
      "x-api-key",
      "content-type",
      "cookie",
      "accept",
      "connection",
      "keep-alive",
      "upgrade",
      "host",
      "content-length",
      "accept-encoding",
      "x-trace",
      "__proto__",
      "constructor",
    ),
    fc.boolean(),
  )
  .map(([base, upper]) => (upper ? base.toUpperCase() : base))
/** Values with HTTP whitespace at their edges; a `connection` value may name other headers. */
const value = fc
  .tuple(
    fc.constantFrom("", " ", "\t", "  "),
    fc.constantFrom("a", "Bearer sk-1", "x-trace", "keep-alive, x-api-key", "v=1; w=2", "close", "__proto__"),
    fc.constantFrom("", " ", "\t"),
  )
  .map(([before, text, after]) => before + text + after)

/**
 * The rule as it was written first, over web `Headers` semantics with a `Map` (an independent
 * model of the one-pass record): lower-case names, trimmed values, repeats joined (`cookie`
 * with "; "), hop-by-hop, the proxy's own and the `Connection`-named dropped.
 */
function modelRequestHeaders(pairs: ReadonlyArray<readonly [string, string]>): Map<string, string> {
  const all = new Map<string, string>()
  for (const [name, value] of pairs) {
    if (name.startsWith(":")) continue
    const key = name.toLowerCase()
    const trimmed = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "")
    const before = all.get(key)
    all.set(key, before === undefined ? trimmed : `${before}${key === "cookie" ? "; " : ", "}${trimmed}`)
  }
  const named = new Set(
    (all.get("connection") ?? "")
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token.length > 0),
  )
  // HOP_BY_HOP and REQUEST_OWN, written out again.
  const dropped = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "accept-encoding",
    "expect",
  ]
  const out = new Map<string, string>()
  for (const [name, value] of all) if (!dropped.includes(name) && !named.has(name)) out.set(name, value)
  out.set("accept-encoding", "identity")
  return out
}

/** A record's entries in order (a `Map`: `__proto__` is a name like any other). */
const entriesOf = (record: Readonly<Record<string, string>>): Map<string, string> =>
  new Map(Object.keys(record).map((key) => [key, record[key]!]))

describe("upstreamRequestHeaders", () => {
  // More runs than the default: a `Connection` naming a single header that is present is rare.
  it.prop([fc.array(fc.tuple(name, value), { maxLength: 12 })], { numRuns: 500 })(
    "gives the model's headers, in the model's order, from Node's rawHeaders",
    (pairs) => {
      expect(entriesOf(upstreamRequestHeaders(pairs.flat()))).toEqual(modelRequestHeaders(pairs))
    },
  )

  it.prop([fc.array(fc.tuple(name, value), { maxLength: 12 })])(
    "Node's rawHeaders give the same upstream headers as the request's Headers",
    (pairs) => {
      const raw = pairs.flat()
      const expected = upstreamRequestHeaders(new Headers(pairs.map(([n, v]) => [n, v] as [string, string])))
      expect({ ...upstreamRequestHeaders(raw) }).toEqual({ ...expected })
      expect(upstreamRequestHeaders([":method", "POST", ":path", "/v1/x", ...raw])).toEqual(
        upstreamRequestHeaders(raw),
      )
    },
  )
})

/** Response header names an upstream may send, in any case: hop-by-hop, the proxy's own, odd ones. */
const responseName = fc
  .tuple(
    fc.constantFrom(
      "content-type",
      "content-length",
      "content-encoding",
      "transfer-encoding",
      "connection",
      "keep-alive",
      "te",
      "set-cookie",
      "x-request-id",
      "x-trace",
      "close",
      "__proto__",
      "constructor",
    ),
    fc.boolean(),
  )
  .map(([base, upper]) => (upper ? base.toUpperCase() : base))
/** Values with whitespace at their edges (undici keeps the trailing); a `connection` value lists names. */
const responseValue = fc
  .tuple(
    fc.constantFrom("", " ", "\t"),
    fc.constantFrom(
      "text/event-stream",
      "a=1; Path=/",
      "1, 2",
      "keep-alive",
      "close",
      "X-Trace, te",
      "x-request-id",
    ),
    fc.constantFrom("", " ", "\t "),
  )
  .map(([before, text, after]) => before + text + after)

/** Sorted by name, `set-cookie` fields in their order: how `Headers` iterates. */
function sortedPairs(fields: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!])
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

describe("the response header rule on Node's list and on web Headers", () => {
  it.prop([fc.array(fc.tuple(responseName, responseValue), { maxLength: 14 })], { numRuns: 300 })(
    "undici's record as a FieldList keeps the same headers as web Headers of the same fields",
    (pairs) => {
      // What fetch makes of the fields, and what undici's `request` makes (its own parser).
      const web = new Headers()
      for (const [n, v] of pairs) web.append(n, v)
      const list = FieldList.fromRecord(util.parseHeaders(pairs.flat()))
      // The upstream's headers, as read.
      expect(sortedPairs(list.fields)).toEqual([...web])
      for (const n of ["content-type", "connection", "set-cookie", "__proto__"])
        expect(list.get(n)).toBe(web.get(n))
      // The client's: the same fields kept, in either kind, and as `writeHead` gets them.
      const expected = [...clientResponseHeaders(web)]
      const kept = keptResponseHeaders(list)
      expect(kept).toBeInstanceOf(FieldList)
      expect(sortedPairs(headerFields(kept))).toEqual(expected)
      expect([...webHeaders(kept)]).toEqual(expected)
      expect([...clientResponseHeaders(list)]).toEqual(expected)
      expect(sortedPairs(headerFields(keptResponseHeaders(web)))).toEqual(expected)
    },
  )
})
