import { fc, it } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { upstreamRequestHeaders } from "../src/forward-headers.ts"

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
    fc.constantFrom("a", "Bearer sk-1", "x-trace", "keep-alive, x-api-key", "v=1; w=2", "close"),
    fc.constantFrom("", " ", "\t"),
  )
  .map(([before, text, after]) => before + text + after)

describe("upstreamRequestHeaders", () => {
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
