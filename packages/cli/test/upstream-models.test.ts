/**
 * The CLI's one reader of `GET /models` (serve's start-up check and probe's `modelOwners`), over
 * real HTTP: the credentials it sends, and what it makes of each kind of answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { describeConnectionError } from "../src/connection-error.ts"
import { modelOwners } from "../src/probe/model-owners.ts"
import { upstreamModels } from "../src/upstream-models.ts"
import { closedPort } from "./support.ts"

/** What the server saw: path and Authorization header of each request. */
const seen: { path: string; authorization: string | undefined }[] = []
const LIST = {
  object: "list",
  data: [
    { id: "qwen3-coder", owned_by: "vllm" },
    { id: "other", owned_by: "someone" },
  ],
}

const routes = new Map<string, (res: ServerResponse) => void>([
  [
    "/v1/models",
    (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(LIST)),
  ],
  ["/down/models", (res) => res.writeHead(503).end("starting")],
  ["/html/models", (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>")],
  ["/object/models", (res) => res.writeHead(200).end(JSON.stringify({ models: ["a"] }))],
  // Headers, then nothing: the client's timeout must end the wait.
  ["/slow/models", (res) => res.writeHead(200).flushHeaders()],
  // The connection closed before any answer (undici's \`UND_ERR_SOCKET\`: "other side closed").
  ["/closed/models", (res) => res.socket?.destroy()],
  // Headers and part of the list, then the connection closes: no list, and not for want of one.
  [
    "/cut/models",
    (res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
      res.write('{"object":"list","data":[')
      setTimeout(() => res.socket?.destroy(), 50)
    },
  ],
])

let server: Server
let base: string
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? ""
    seen.push({ path, authorization: req.headers.authorization })
    const route = routes.get(path)
    if (route === undefined) res.writeHead(404).end()
    else route(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe("upstreamModels", () => {
  it("sends the URL's credentials as Basic auth, as the proxy does, and an API key as Bearer", async () => {
    seen.length = 0
    const answer = await upstreamModels(`http://us%40er:p%C3%A4ss@${base}/v1/`, {
      timeoutMs: 10_000,
      apiKey: "k",
    })
    expect(answer).toEqual({
      kind: "models",
      models: [
        { id: "qwen3-coder", ownedBy: "vllm" },
        { id: "other", ownedBy: "someone" },
      ],
    })
    await upstreamModels(`http://${base}/v1`, { timeoutMs: 10_000, apiKey: "k" })
    expect(seen).toEqual([
      { path: "/v1/models", authorization: `Basic ${Buffer.from("us@er:päss").toString("base64")}` },
      { path: "/v1/models", authorization: "Bearer k" },
    ])
  })

  it("says what else it got: a status, a body that is no model list, no answer in time, nothing listening", async () => {
    expect(await upstreamModels(`http://${base}/down`, { timeoutMs: 10_000 })).toEqual({
      kind: "status",
      status: 503,
    })
    expect(await upstreamModels(`http://${base}/html`, { timeoutMs: 10_000 })).toEqual({ kind: "not-a-list" })
    expect(await upstreamModels(`http://${base}/object`, { timeoutMs: 10_000 })).toEqual({
      kind: "not-a-list",
    })
    expect(await upstreamModels(`http://${base}/slow`, { timeoutMs: 300 })).toEqual({
      kind: "unreachable",
      reason: `no answer from http://${base}/slow/models within 0.3 s`,
    })
    expect(await upstreamModels(`http://${base}/closed`, { timeoutMs: 10_000 })).toEqual({
      kind: "unreachable",
      reason: `the connection to http://${base}/closed/models was closed before a complete answer`,
    })
    expect(await upstreamModels(`http://${base}/cut`, { timeoutMs: 10_000 })).toEqual({
      kind: "unreachable",
      reason: `the connection to http://${base}/cut/models was closed before a complete answer`,
    })
    const port = await closedPort()
    expect(await upstreamModels(`http://127.0.0.1:${port}/v1`, { timeoutMs: 10_000 })).toEqual({
      kind: "unreachable",
      reason: `connection refused: nothing is listening at http://127.0.0.1:${port}/v1/models (is the server running, on that port?)`,
    })
  })
})

describe("modelOwners reads the same list", () => {
  it("gives the model's owner, every owner when the model is not listed, none on failure", async () => {
    expect(await modelOwners(`http://${base}/v1`, "qwen3-coder", "k", 10_000)).toEqual(["vllm"])
    expect(await modelOwners(`http://${base}/v1`, "missing", "k", 10_000)).toEqual(["vllm", "someone"])
    expect(await modelOwners(`http://${base}/down`, "qwen3-coder", "k", 10_000)).toEqual([])
  })
})

describe("describeConnectionError", () => {
  it("reads a resolver's temporary failure as a host that does not resolve (EAI_AGAIN, not reproducible on demand)", () => {
    // The shape of undici's rejection when getaddrinfo fails without DNS: `fetch failed`, its cause
    // Node's resolver error with the code.
    const cause = Object.assign(new Error("getaddrinfo EAI_AGAIN upstream.lan"), { code: "EAI_AGAIN" })
    const error = new TypeError("fetch failed", { cause })
    expect(describeConnectionError(error, "http://upstream.lan/v1/models")).toBe(
      "cannot resolve the host of http://upstream.lan/v1/models (check its spelling)",
    )
  })
})
