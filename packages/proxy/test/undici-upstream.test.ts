/**
 * The Node entry's upstream client (undici's `request`, its body read as a Node stream), through
 * a proxy started as users start it, against a plain node:http upstream that answers the way
 * some servers do: compressed despite `accept-encoding: identity`, with a redirect, with no
 * body; and on its own, its bounds (undici's timeouts) and a cut.
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { afterEach, describe, expect, it } from "vitest"
import type { UpstreamLimits } from "../src/proxy-context.ts"
import { undiciUpstream } from "../src/undici-upstream.ts"
import { UpstreamFailure } from "../src/upstream-failure.ts"
import { type PlainUpstream, startPlainUpstream } from "./support/plain-upstream.ts"

let closeAll: (() => Promise<void>) | undefined
afterEach(async () => {
  await closeAll?.()
  closeAll = undefined
})

async function start(answer: Parameters<typeof startPlainUpstream>[0]): Promise<PlainUpstream> {
  const started = await startPlainUpstream(answer)
  closeAll = started.close
  return started
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

describe("undiciUpstream's bounds (undici's own timeouts)", () => {
  type Kind = Parameters<UpstreamLimits["failed"]>[0]
  async function upstream(answer: (response: ServerResponse) => void) {
    let closed = false
    const server = createServer((_, response) => {
      response.once("close", () => {
        closed = true
      })
      answer(response)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    const failed: Kind[] = []
    const send = undiciUpstream({ timeoutMs: 5_000, idleMs: 100, failed: (kind) => failed.push(kind) })
    const response = await send(
      `http://127.0.0.1:${port}/v1/chat/completions`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Uint8Array(),
      },
      new AbortController().signal,
    )
    closeAll = async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
    return { response, failed, closed: () => closed }
  }

  it("a body that stalls after its headers fails with timeout, counted once, and the upstream connection is closed", async () => {
    const { response, failed, closed } = await upstream((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write("data: {}\n\n")
    })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: {}\n\n")
    const error = await reader.read().catch((e: unknown) => e)
    expect(UpstreamFailure.isInstance(error) && error.kind).toBe("timeout")
    expect(failed).toEqual(["timeout"])
    for (let i = 0; i < 200 && !closed(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(closed()).toBe(true)
  })

  it("a reader that holds a fast body back longer than the bound is no idle upstream (the socket is paused), and gets every byte", async () => {
    const size = 8 * 1024 * 1024
    const { response, failed } = await upstream((response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.end(Buffer.alloc(size, 7))
    })
    const reader = response.body!.getReader()
    let received = (await reader.read()).value?.byteLength ?? 0
    // Ten times the bound, and past undici's timer resolution.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      received += next.value.byteLength
    }
    expect(received).toBe(size)
    expect(failed).toEqual([])
  })

  it("the bytes before a cut are read before it; the cut fails with cut, counted", async () => {
    const { response, failed } = await upstream((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write("data: 1\n\n", () => setTimeout(() => response.destroy(), 20))
    })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 1\n\n")
    const error = await reader.read().catch((e: unknown) => e)
    expect(UpstreamFailure.isInstance(error) && error.kind).toBe("cut")
    expect(failed).toEqual(["cut"])
  })
})
