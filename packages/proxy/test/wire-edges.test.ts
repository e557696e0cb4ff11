/**
 * Edges of the wire, each through a proxy started as users start it (`startProxyServer`) with
 * raw HTTP (node:http or fetch, no SDK between), against the replay server or a plain node:http
 * upstream that answers the way a hostile or broken server does.
 */
import { type IncomingHttpHeaders, request } from "node:http"
import { brotliCompressSync, gzipSync } from "node:zlib"
import { afterEach, describe, expect, it, vi } from "vitest"
import { captureLogger, type Harness, QWEN_LEAK, READ_FILE_TOOL, startHarness } from "./support/harness.ts"
import { startPlainUpstream } from "./support/plain-upstream.ts"
import { protocolClients } from "./support/protocol-clients.ts"

let harness: Harness | undefined
let closePlain: (() => Promise<void>) | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.close()
  harness = undefined
  await closePlain?.()
  closePlain = undefined
})

/** A streamed request of `client`'s protocol, as raw HTTP. */
function streamed(client: (typeof protocolClients)[number]): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ ...client.body, stream: true }),
  }
}

describe.each(protocolClients)(
  "$name: an upstream that sends its end event but keeps the response open",
  (client) => {
    it("gets the end event forwarded and the client's response finished, with no error after it", async () => {
      // An idle bound the test would reach if the proxy waited for the upstream to close.
      harness = await startHarness([{ content: "All done.", chunkSize: 3, interrupt: { kind: "hold" } }], {
        upstreamIdleTimeoutMs: 1000,
      })
      const response = await fetch(`${harness.proxy.url}${client.path}`, streamed(client))
      const text = await response.text()
      expect(text).not.toContain("upstream-timeout")
      expect(text).not.toContain("event: error")
      expect(text).not.toContain('{"error"')
      expect(text).toContain(
        { chat: "[DONE]", responses: "response.completed", messages: "message_stop" }[client.name],
      )
    })

    it("a recovered turn whose retry holds its response open ends at the retry's end event", async () => {
      harness = await startHarness(
        [
          { content: QWEN_LEAK, interrupt: { kind: "hold" } },
          { content: "Recovered.", interrupt: { kind: "hold" } },
        ],
        { upstreamIdleTimeoutMs: 1000 },
      )
      const text = await (await fetch(`${harness.proxy.url}${client.path}`, streamed(client))).text()
      expect(text).not.toContain("upstream-timeout")
      expect(text).toContain("Recovered.")
      expect(harness.turns()).toBe(2)
    })
  },
)

/** Each protocol's stream of one text delta and its end event, as a plain upstream writes it. */
const ENDED_STREAMS: Readonly<Record<(typeof protocolClients)[number]["name"], string>> = {
  chat:
    'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]}\n\n' +
    "data: [DONE]\n\n",
  // No `event:` lines: the end event is known by its data's type.
  responses:
    'data: {"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":"Done."}\n\n' +
    'data: {"type":"response.completed","response":{"id":"r1","object":"response","status":"completed","output":[]}}\n\n',
  messages:
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}\n\n' +
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
}

describe.each(protocolClients)(
  "$name: a passed-through stream (no tools) whose upstream keeps its response open after the end event",
  (client) => {
    it("ends the client's response at the end event, while the upstream's is still open", async () => {
      let upstreamOpen = true
      const plain = await startPlainUpstream((_, response) => {
        response.once("close", () => {
          upstreamOpen = false
        })
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write(ENDED_STREAMS[client.name])
      })
      closePlain = plain.close
      const { tools: _, ...withoutTools } = client.body
      const response = await fetch(`${plain.proxy.url}${client.path}`, {
        ...streamed(client),
        body: JSON.stringify({ ...withoutTools, stream: true }),
      })
      const text = await response.text()
      expect(text).toBe(ENDED_STREAMS[client.name])
      // The proxy ended the client's response on the end event, not on the upstream's close.
      expect(upstreamOpen).toBe(true)
      expect(plain.seen).toHaveLength(1)
    })
  },
)

describe.each(protocolClients)("$name: an upstream event whose data is not JSON", (client) => {
  it("ends the client's stream with the protocol's error event and one log line, never a reset", async () => {
    const { logger, lines } = captureLogger()
    const plain = await startPlainUpstream(
      (_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end("data: {not json\n\n")
      },
      { logger },
    )
    closePlain = plain.close
    const response = await fetch(`${plain.proxy.url}${client.path}`, streamed(client))
    expect(response.status).toBe(200)
    const text = await response.text()
    const errorEvent = text
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)) as { error?: { code?: string; message?: string } })
      .find((event) => event.error !== undefined)
    expect(errorEvent?.error).toMatchObject({
      code: "upstream-malformed",
      message: "The upstream sent an event that is not JSON.",
    })
    if (client.name !== "chat") expect(text).toContain("event: error\n")
    // One line through the proxy's logger, naming the failure's kind (no stack trace).
    expect(lines).toEqual([expect.objectContaining({ outcome: "upstream-error", kind: "malformed" })])
  })
})

/** `client`'s streamed request whose first message's content is nested `depth` arrays deep. */
function nested(client: (typeof protocolClients)[number], depth: number): RequestInit {
  const deep = `${"[".repeat(depth - 1)}"go"${"]".repeat(depth - 1)}`
  const body = JSON.stringify({ ...client.body, stream: true })
  const field = client.name === "responses" ? '"input":"Show me a.ts"' : '"content":"Show me a.ts"'
  return {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: body.replace(field, field.replace('"Show me a.ts"', deep)),
  }
}

describe.each(protocolClients)("$name: a request body nested thousands of levels deep", (client) => {
  it("is refused with a 400 in the protocol's error shape, nothing sent upstream", async () => {
    harness = await startHarness([{ content: QWEN_LEAK }, { content: "never" }])
    const response = await fetch(`${harness.proxy.url}${client.path}`, nested(client, 5000))
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { type: string; code?: string; message: string } }
    expect(body.error).toMatchObject({ code: "json_too_deep" })
    expect(body.error.type).toMatch(/invalid_request/)
    expect(harness.turns()).toBe(0)
  })

  it("one within the bound is recovered, its retry included", async () => {
    harness = await startHarness([{ content: QWEN_LEAK }, { content: "Recovered." }])
    const text = await (await fetch(`${harness.proxy.url}${client.path}`, nested(client, 400))).text()
    expect(text).toContain("Recovered.")
    expect(harness.turns()).toBe(2)
  })
})

/** A request through node:http, nothing decoded: the status, headers and body bytes as sent. */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: init.method ?? "GET", headers: init.headers ?? {} }, (response) => {
      const parts: Buffer[] = []
      response.on("data", (part: Buffer) => parts.push(part))
      response.once("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts) }),
      )
      response.once("error", reject)
    })
    sent.once("error", reject)
    sent.end(init.body)
  })
}

describe.each([
  { client: "undici", options: {} },
  {
    client: "fetch",
    options: { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) },
  },
])("content codings the upstream sent anyway ($client upstream client)", ({ options }) => {
  const models = JSON.stringify({ object: "list", data: [{ id: "qwen3-coder", object: "model" }] })

  it("stacked codings (gzip, gzip) are decoded, and the header goes with them", async () => {
    const plain = await startPlainUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip, gzip" })
      response.end(gzipSync(gzipSync(models)))
    }, options)
    closePlain = plain.close
    const answer = await raw(`${plain.proxy.url}/models`)
    expect(answer.headers["content-encoding"]).toBeUndefined()
    expect(answer.body.toString("utf8")).toBe(models)
  })

  it("a recovered stream sent as gzip, br is decoded and recovered", async () => {
    const leak = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: QWEN_LEAK } }] })}\n\ndata: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`
    const plain = await startPlainUpstream((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip, br" })
      response.end(brotliCompressSync(gzipSync(leak)))
    }, options)
    closePlain = plain.close
    const answer = await raw(`${plain.proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "go" }],
        tools: [READ_FILE_TOOL],
      }),
    })
    expect(answer.headers["content-encoding"]).toBeUndefined()
    // The leak was read (decoded), withheld and retried.
    expect(answer.body.toString("utf8")).not.toContain("<tool_call>")
    expect(plain.seen).toHaveLength(2)
  })

  for (const coding of ["x-unknown", "gzip, x-unknown"]) {
    it(`an unknown coding (${coding}) passes through with its bytes intact and its header kept`, async () => {
      const bytes = Buffer.from([0x1f, 0x8b, 0x00, 0xff, 0x10, 0x20, 0x30])
      const plain = await startPlainUpstream((_, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-encoding": coding })
        response.end(bytes)
      }, options)
      closePlain = plain.close
      const answer = await raw(`${plain.proxy.url}/models`)
      expect(answer.headers["content-encoding"]).toBe(coding)
      expect(answer.body).toEqual(bytes)
      // On a recovered route too: the proxy cannot read it, so it passes it on as it came.
      const recovered = await raw(`${plain.proxy.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "go" }],
          tools: [READ_FILE_TOOL],
        }),
      })
      expect(recovered.headers["content-encoding"]).toBe(coding)
      expect(recovered.body).toEqual(bytes)
    })
  }
})

describe.each([
  { client: "undici", options: {} },
  {
    client: "fetch",
    options: { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) },
  },
])("an upstream's 100 KB response header ($client upstream client)", ({ options }) => {
  it("is named truly (not 'could not be reached'), on a recovered route and passed through", async () => {
    const plain = await startPlainUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "x-big": "x".repeat(100 * 1024) })
      response.end("{}")
    }, options)
    closePlain = plain.close
    for (const [path, init] of [
      ["/models", {}],
      [
        "/chat/completions",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "m",
            messages: [{ role: "user", content: "go" }],
            tools: [READ_FILE_TOOL],
          }),
        },
      ],
    ] as const) {
      const answer = await raw(`${plain.proxy.url}${path}`, init)
      expect(answer.status).toBe(502)
      const { error } = JSON.parse(answer.body.toString("utf8")) as {
        error: { code: string; message: string }
      }
      expect(error.code).toBe("upstream-malformed")
      expect(error.message).toMatch(/headers/)
      expect(error.message).not.toMatch(/reached/)
    }
  })
})

describe.each(protocolClients)(
  "$name: a stream still open when the shutdown's grace period ends",
  (client) => {
    it("gets the protocol's error event before its connection is cut", async () => {
      harness = await startHarness(
        [{ content: "Working on it, slowly", chunkSize: 4, interrupt: { kind: "stall", afterChunks: 2 } }],
        {
          graceMs: 50,
        },
      )
      const response = await fetch(`${harness.proxy.url}${client.path}`, streamed(client))
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = decoder.decode((await reader.read()).value, { stream: true })
      const closing = harness.proxy.close()
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
        if (chunk.done) break
        text += decoder.decode(chunk.value, { stream: true })
      }
      await closing
      const last = text.trimEnd().split("\n").at(-1) ?? ""
      expect(JSON.parse(last.slice("data: ".length))).toMatchObject({
        error: { code: "proxy-shutdown", message: "The proxy shut down before the response was complete." },
      })
      if (client.name !== "chat") expect(text).toContain("event: error\n")
    })
  },
)

describe("a request body that goes silent", () => {
  for (const path of ["/chat/completions", "/models"]) {
    it(`is cut after the inactivity bound with a 408, not only at the whole-request limit (${path})`, async () => {
      harness = await startHarness([{ content: "never" }], { requestIdleTimeoutMs: 200 })
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const sent = request(
          `${harness!.proxy.url}${path}`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": "1000" } },
          (response) => {
            let body = ""
            response.on("data", (part: Buffer) => {
              body += part.toString("utf8")
            })
            response.once("end", () => resolve({ status: response.statusCode ?? 0, body }))
          },
        )
        sent.once("error", reject)
        // Ten bytes of the thousand announced, then silence.
        sent.write('{"model":')
      })
      expect(answer.status).toBe(408)
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "request_timeout" } })
      expect(harness.upstream.requests.filter((r) => r.path !== "/v1/models")).toHaveLength(0)
    })
  }
})

describe("a request body that arrives in pieces", () => {
  // The Node entry reads a body of declared length from the connection itself and takes it once
  // that length is in; a chunked body goes through the request's own reader.
  for (const framing of ["content-length", "chunked"] as const) {
    it(`goes upstream byte for byte and is recovered (${framing})`, async () => {
      harness = await startHarness([{ content: "Hello there." }])
      const body = JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "Say hello — “politely”, ünïcödé split across pieces." }],
        tools: [READ_FILE_TOOL],
      })
      const bytes = Buffer.from(body, "utf8")
      // Cuts inside a multi-byte character too.
      const cuts = [0, 7, bytes.indexOf(Buffer.from("“")) + 1, bytes.length - 3, bytes.length]
      const headers: Record<string, string> = { "content-type": "application/json" }
      if (framing === "content-length") headers["content-length"] = String(bytes.length)
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const sent = request(
          `${harness!.proxy.url}/chat/completions`,
          { method: "POST", headers },
          (response) => {
            let text = ""
            response.on("data", (part: Buffer) => {
              text += part.toString("utf8")
            })
            response.once("end", () => resolve({ status: response.statusCode ?? 0, body: text }))
          },
        )
        sent.once("error", reject)
        const write = (piece: number) => {
          if (piece + 1 >= cuts.length) {
            sent.end()
            return
          }
          sent.write(bytes.subarray(cuts[piece], cuts[piece + 1]))
          setTimeout(() => write(piece + 1), 20)
        }
        write(0)
      })
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body)).toMatchObject({ choices: [{ message: { content: "Hello there." } }] })
      const upstream = harness.upstream.requests.filter((r) => r.path === "/v1/chat/completions")
      expect(upstream.map((r) => r.rawBody)).toEqual([body])
    })
  }

  it("that stops short (the client goes away) sends nothing upstream", async () => {
    harness = await startHarness([{ content: "never" }])
    await new Promise<void>((resolve) => {
      const sent = request(`${harness!.proxy.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "1000" },
      })
      sent.once("error", () => resolve())
      sent.write('{"model":"m","messages":[', () => setTimeout(() => sent.destroy(), 50))
      sent.once("close", () => resolve())
    })
    // The proxy has seen the connection close by the time a new request is answered.
    const health = await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/healthz`)
    expect(health.status).toBe(200)
    expect(harness.upstream.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(0)
  })
})
