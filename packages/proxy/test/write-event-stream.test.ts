import { afterEach, describe, expect, it } from "vitest"
import { type Harness, READ_FILE_TOOL, startHarness } from "./support/harness.ts"
import { startPlainUpstream } from "./support/plain-upstream.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** More than loopback's socket buffers hold, so a client that stops reading holds the proxy back. */
const BIG = "0123456789abcdef".repeat(1024 * 1024) // 16 MiB
const request = { model: "m", stream: true, messages: [{ role: "user", content: "go" }] }

async function post(h: Harness, signal?: AbortSignal): Promise<Response> {
  return fetch(`${h.proxy.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
    ...(signal === undefined ? {} : { signal }),
  })
}

describe("an event stream's headers", () => {
  it("reach the client at once when the only event so far is held back (a possible marker's start)", async () => {
    // An upstream that sends its headers and one event whose text may open a call, then waits.
    const started = await startPlainUpstream((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write(
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "<tool" }, finish_reason: null }] })}\n\n`,
      )
    })
    const controller = new AbortController()
    try {
      const response = await fetch(`${started.proxy.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...request, tools: [READ_FILE_TOOL] }),
        signal: controller.signal,
      })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/event-stream")
    } finally {
      controller.abort()
      await started.close()
    }
  })
})

describe("an event stream's upstream headers", () => {
  it.each([
    ["recovered", "undici", [READ_FILE_TOOL]],
    ["passed through", "undici", undefined],
    ["recovered", "fetch", [READ_FILE_TOOL]],
    ["passed through", "fetch", undefined],
  ] as const)(
    "reach the client whatever their names (%s, upstream through %s): repeated cookies and names, `__proto__`; hop-by-hop ones do not",
    async (_, upstream, tools) => {
      const started = await startPlainUpstream(
        (_, response) => {
          response.writeHead(200, [
            ["content-type", "text/event-stream"],
            ["x-request-id", "r1"],
            ["__proto__", "kept"],
            ["set-cookie", "a=1"],
            ["X-Multi", "1"],
            ["set-cookie", "b=2"],
            ["x-multi", "2 "],
            ["connection", "keep-alive, X-Hop"],
            ["x-hop", "named by Connection"],
          ] as unknown as Record<string, string>)
          response.end(
            `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
          )
        },
        // The Node entry's upstream through `fetch`: web `Headers` written by the same writer.
        upstream === "fetch" ? { fetch: globalThis.fetch } : {},
      )
      try {
        const response = await fetch(`${started.proxy.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...request, ...(tools === undefined ? {} : { tools }) }),
        })
        expect(response.headers.get("x-request-id")).toBe("r1")
        expect(response.headers.get("__proto__")).toBe("kept")
        expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"])
        expect(response.headers.get("x-multi")).toBe("1, 2")
        expect(response.headers.get("x-hop")).toBeNull()
        expect(await response.text()).toContain('"content":"hi"')
      } finally {
        await started.close()
      }
    },
  )
})

describe("an event stream written to a slow client", () => {
  it("waits for the client (backpressure) without taking it for an idle upstream, and loses nothing", async () => {
    harness = await startHarness([{ content: BIG, chunkSize: 64 * 1024 }], { upstreamIdleTimeoutMs: 100 })
    const response = await post(harness)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = decoder.decode((await reader.read()).value, { stream: true })
    // Far longer than the idle timeout: the proxy stops reading the upstream meanwhile.
    await sleep(500)
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      text += decoder.decode(next.value, { stream: true })
    }
    let content = ""
    for (const line of text.split("\n\n")) {
      if (!line.startsWith("data: {")) continue
      content +=
        (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta
          .content ?? ""
    }
    expect(content.length).toBe(BIG.length)
    expect(content === BIG).toBe(true)
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true)
  })

  it("a client that leaves while the proxy waits for it aborts the upstream request", async () => {
    harness = await startHarness([{ content: BIG, chunkSize: 64 * 1024 }])
    const controller = new AbortController()
    const response = await post(harness, controller.signal)
    await response.body!.getReader().read()
    await sleep(100)
    controller.abort()
    const upstream = harness.upstream.requests[0]!
    for (let i = 0; i < 400 && !upstream.closedByClient; i++) await sleep(5)
    expect(upstream.closedByClient).toBe(true)
  })
})
