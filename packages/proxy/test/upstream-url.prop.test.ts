import { fc, it } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { upstreamTarget, upstreamUrl } from "../src/upstream-url.ts"

const ROUTES = ["/v1/chat/completions", "/v1/responses", "/v1/messages"]
const UPSTREAMS = ["http://127.0.0.1:11434/v1", "http://127.0.0.1:8000", "https://models.example/api/v1/"]

const segment = fc.oneof(
  fc.constantFrom("v1", "chat", "completions", "responses", "messages", "models", "", "%76%31", ".."),
  fc.stringMatching(/^[\w.~%-]{0,6}$/),
)
const path = fc.oneof(
  fc.constantFrom(...ROUTES),
  fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join("/")}`),
  fc.constantFrom(...ROUTES).chain((route) => segment.map((tail) => `${route}/${tail}`)),
)
const query = fc.oneof(fc.constant(""), fc.stringMatching(/^\?[\w=&%/.-]{0,10}$/))
const authority = fc.constantFrom("127.0.0.1:8787", "localhost", "[::1]:9000", "proxy.internal")

describe("upstreamTarget", () => {
  it.prop([fc.constantFrom(...UPSTREAMS), authority, path, query])(
    "gives the href upstreamUrl gives for the request URL's path and query",
    (base, host, requestPath, search) => {
      const upstream = new URL(base)
      const known = new Map(ROUTES.map((route) => [route, upstreamUrl(upstream, route, "").href]))
      const requestUrl = new URL(`http://${host}${requestPath}${search}`).href
      const url = new URL(requestUrl)
      expect(upstreamTarget(upstream, known, requestUrl)).toBe(
        upstreamUrl(upstream, url.pathname, url.search).href,
      )
    },
  )
})
