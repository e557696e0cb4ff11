import { describe, expect, it } from "vitest"
import { boundUpstreamBody, upstreamText } from "../src/bound-upstream-body.ts"
import { byteStream } from "../src/byte-stream.ts"
import { createProxy } from "../src/index.ts"
import { UpstreamFailure } from "../src/upstream-failure.ts"
import { protocolClients } from "./support/protocol-clients.ts"

const encoder = new TextEncoder()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A body that sends `chunks`, then fails with `error` (or ends, without one). */
function body(chunks: readonly string[], error?: unknown): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]))
      else if (error === undefined) controller.close()
      else controller.error(error)
    },
  })
}

function bound(source: ReadableStream<Uint8Array>, signal = new AbortController().signal) {
  const failed: string[] = []
  const aborted: unknown[] = []
  const response = boundUpstreamBody(source, {
    idleMs: 50,
    abort: (reason) => aborted.push(reason),
    signal,
    failed: (kind) => failed.push(kind),
  })
  return { response, failed, aborted }
}

describe("boundUpstreamBody", () => {
  it("passes the bytes on unchanged, read whole or as a stream", async () => {
    const { response, failed } = bound(body(["a", "bc"]))
    expect(await upstreamText(response)).toBe("abc")
    expect(await new Response(byteStream(bound(body(["d", "ef"])).response.getReader())).text()).toBe("def")
    expect(failed).toEqual([])
  })

  it("does not count a slow reader as an idle upstream: the clock runs only while a read waits", async () => {
    const { response, failed } = bound(body(["a", "b", "c"]))
    const reader = response.getReader()
    let text = ""
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      text += new TextDecoder().decode(next.value)
      await sleep(120)
    }
    expect(text).toBe("abc")
    expect(failed).toEqual([])
  })

  it("a read that waits past idleMs aborts the upstream and fails with timeout, read whole or as a stream", async () => {
    const silent = () => new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) })
    const { response, failed, aborted } = bound(silent())
    const error = await upstreamText(response).catch((e: unknown) => e)
    expect(UpstreamFailure.isInstance(error) && error.kind).toBe("timeout")
    expect(aborted).toEqual([error])
    expect(failed).toEqual(["timeout"])
    const relayed = await new Response(byteStream(bound(silent()).response.getReader()))
      .text()
      .catch((e: unknown) => e)
    expect(UpstreamFailure.isInstance(relayed) && relayed.kind).toBe("timeout")
  })

  it("a body that fails is a cut; once the caller's signal aborted, its error passes as it is", async () => {
    const reset = new TypeError("terminated")
    const cut = bound(body(["a"], reset))
    const error = await upstreamText(cut.response).catch((e: unknown) => e)
    expect(UpstreamFailure.isInstance(error) && error.kind).toBe("cut")
    expect((error as Error).cause).toBe(reset)
    expect(cut.failed).toEqual(["cut"])

    const controller = new AbortController()
    controller.abort()
    const left = bound(body([], reset), controller.signal)
    expect(await upstreamText(left.response).catch((e: unknown) => e)).toBe(reset)
    expect(left.failed).toEqual([])
  })
})

describe.each(protocolClients)("$name: a JSON body cut after its headers", (client) => {
  it("is a 502 upstream-cut in the protocol's error shape", async () => {
    const proxy = createProxy({
      upstream: "http://127.0.0.1:1/v1",
      fetch: async () =>
        new Response(body(['{"id":"x",'], new TypeError("terminated")), {
          headers: { "content-type": "application/json" },
        }),
    })
    const response = await proxy.fetch(
      new Request(`http://127.0.0.1:8787/v1${client.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(client.body),
      }),
    )
    expect(response.status).toBe(502)
    const json = (await response.json()) as { error: { code: string; type: string } }
    expect(json.error).toMatchObject({
      code: "upstream-cut",
      type: client.name === "messages" ? "api_error" : "upstream_error",
    })
    expect(await proxy.metrics.render()).toContain('tool_rescue_proxy_upstream_failures_total{kind="cut"} 1')
  })
})
