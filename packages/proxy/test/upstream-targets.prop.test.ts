import { fc, it } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { UpstreamTargets } from "../src/undici-upstream.ts"
import { upstreamUrl } from "../src/upstream-url.ts"

/** The proxy's targets (`upstreamUrl` of an upstream and a client's path and query), and odd ones. */
const target = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        "http://127.0.0.1:11434/v1",
        "http://[::1]:8000",
        "https://api.example.com/v1/",
        "http://host:80/api",
        "https://host:443",
      ),
      fc.constantFrom("/v1/chat/completions", "/v1/models", "/", "/v1/a%20b", "/x/ä", "/v1"),
      fc.constantFrom("", "?a=1", "?q=a%20b&x", "?"),
    )
    .map(([upstream, path, search]) => upstreamUrl(new URL(upstream), path, search).href),
  fc.constantFrom(
    "http://user:pw@127.0.0.1:11434/v1/models",
    "http://127.0.0.1:11434/v1/models#part",
    "http://127.0.0.1:11434/v1/models?",
    "http://127.0.0.1:11434",
    "HTTP://127.0.0.1:11434/v1/models",
  ),
)

describe("UpstreamTargets", () => {
  it.prop([fc.array(target, { minLength: 1, maxLength: 8 })])(
    "splits each target into the origin and path undici's request(url) derives from its URL",
    (targets) => {
      const split = new UpstreamTargets()
      for (const each of targets) {
        const path = split.path(each)
        // undici's `request(url, …)` (index.js, makeDispatcher): `url.origin`, and the pathname
        // with the query when there is one.
        const url = new URL(each)
        expect({ origin: split.origin, path }).toEqual({
          origin: url.origin,
          path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        })
      }
    },
  )
})
