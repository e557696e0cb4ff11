/**
 * The Node entry's upstream client (undici's `request` behind a `fetch` signature), through a
 * proxy started as users start it, against a plain node:http upstream that answers the way some
 * servers do: compressed despite `accept-encoding: identity`, with a redirect, with no body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { afterEach, describe, expect, it } from "vitest"
import { type ProxyServer, startProxyServer } from "../src/node.ts"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

let closeAll: (() => Promise<void>) | undefined
afterEach(async () => {
  await closeAll?.()
  closeAll = undefined
})

async function start(answer: (request: Seen, response: ServerResponse) => void): Promise<{
  proxy: ProxyServer
  seen: Seen[]
}> {
  const seen: Seen[] = []
  const server = createServer(async (request, response) => {
    const parts: Buffer[] = []
    for await (const part of request) parts.push(part as Buffer)
    const entry = {
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(parts).toString("utf8"),
    }
    seen.push(entry)
    answer(entry, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const proxy = await startProxyServer({ upstream: `http://127.0.0.1:${port}/v1`, port: 0, graceMs: 50 })
  closeAll = async () => {
    await proxy.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return { proxy, seen }
}

describe("the Node entry's upstream client", () => {
  it("asks for identity, and decodes a gzip body a server sent anyway (no content-encoding reaches the client)", async () => {
    const models = JSON.stringify({ object: "list", data: [{ id: "qwen3-coder", object: "model" }] })
    const { proxy, seen } = await start((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
      response.end(gzipSync(models))
    })
    const response = await fetch(`${proxy.url}/models`, { headers: { "accept-encoding": "gzip" } })
    expect(seen[0]!.headers["accept-encoding"]).toBe("identity")
    expect(response.headers.get("content-encoding")).toBeNull()
    expect(await response.text()).toBe(models)
  })

  it("passes a redirect on instead of following it", async () => {
    const { proxy, seen } = await start((_, response) => {
      response.writeHead(307, { location: "http://127.0.0.1:1/elsewhere" })
      response.end()
    })
    const response = await fetch(`${proxy.url}/models`, { redirect: "manual" })
    expect(response.status).toBe(307)
    expect(response.headers.get("location")).toBe("http://127.0.0.1:1/elsewhere")
    expect(seen).toHaveLength(1)
  })

  it("answers a HEAD and a 204 without a body, and streams a request body through", async () => {
    const { proxy, seen } = await start((request, response) => {
      if (request.method === "HEAD") {
        response.writeHead(200, { "content-type": "application/json", "content-length": "42" })
        response.end()
      } else {
        response.writeHead(204)
        response.end()
      }
    })
    const head = await fetch(`${proxy.url}/models`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
    const body = JSON.stringify({ input: "x".repeat(100_000) })
    const put = await fetch(`${proxy.url}/files/f1`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body,
    })
    expect(put.status).toBe(204)
    expect(seen[1]).toMatchObject({ method: "PUT", url: "/v1/files/f1", body })
  })
})
