import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const SECRET = "sk-very-secret-0123456789"
const leakBody = (stream: boolean) =>
  JSON.stringify({
    model: "m",
    stream,
    messages: [{ role: "user", content: "a.ts?" }],
    tools: [READ_FILE_TOOL],
  })

/** A request through node:http, so hop-by-hop headers that fetch forbids can be sent. */
function send(url: string, headers: Record<string, string>, body: string) {
  const target = new URL(url)
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers },
        (res) => {
          const parts: Buffer[] = []
          res.on("data", (part: Buffer) => parts.push(part))
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(parts).toString("utf8"),
            }),
          )
        },
      )
      req.on("error", reject)
      req.end(body)
    },
  )
}

describe("headers", () => {
  it("forwards end-to-end headers to both attempts, drops hop-by-hop ones, recomputes content-length", async () => {
    harness = await startHarness([
      { content: QWEN_LEAK, headers: { "x-upstream": "u1" } },
      { content: "Done." },
    ])
    const response = await send(
      `${harness.proxy.url}/chat/completions`,
      {
        "content-type": "application/json",
        authorization: `Bearer ${SECRET}`,
        "x-api-key": SECRET,
        "openai-organization": "org-1",
        connection: "keep-alive, x-hop",
        "x-hop": "named by Connection",
        te: "trailers",
        "proxy-authorization": "Basic cHJveHk=",
      },
      leakBody(false),
    )
    expect(response.status).toBe(200)
    expect(response.headers["x-request-id"]).toBe("req_replay_0")
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(response.body)))
    for (const seen of harness.upstream.requests) {
      expect(seen.headers.authorization).toBe(`Bearer ${SECRET}`)
      expect(seen.headers["x-api-key"]).toBe(SECRET)
      expect(seen.headers["openai-organization"]).toBe("org-1")
      expect(seen.headers["x-hop"]).toBeUndefined()
      expect(seen.headers.te).toBeUndefined()
      expect(seen.headers["proxy-authorization"]).toBeUndefined()
      expect(seen.headers["content-length"]).toBe(String(Buffer.byteLength(seen.rawBody)))
    }
    expect(harness.upstream.requests[1]!.rawBody).not.toBe(harness.upstream.requests[0]!.rawBody)
  })

  it("credentials appear in no error body and no failed-response record", async () => {
    harness = await startHarness([{ content: QWEN_LEAK }, { content: QWEN_LEAK }], { maxBodyBytes: 4096 })
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${SECRET}`,
      "x-api-key": SECRET,
    }
    const repeated = await send(`${harness.proxy.url}/chat/completions`, headers, leakBody(false))
    const tooLarge = await send(`${harness.proxy.url}/chat/completions`, headers, "x".repeat(5000))
    const malformed = await send(`${harness.proxy.url}/messages`, headers, "{")
    expect([repeated.status, tooLarge.status, malformed.status]).toEqual([422, 413, 400])
    for (const body of [repeated.body, tooLarge.body, malformed.body, JSON.stringify(harness.failed)])
      expect(body).not.toContain(SECRET)
  })
})

describe("bad input: a clear protocol error, nothing sent upstream, the proxy keeps serving", () => {
  it("413 beyond the body limit, with or without content-length", async () => {
    harness = await startHarness([], { maxBodyBytes: 1000 })
    const big = JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(2000) }] })
    const declared = await fetch(`${harness.proxy.url}/chat/completions`, { method: "POST", body: big })
    expect(declared.status).toBe(413)
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe("request_too_large")
    const chunked = await fetch(`${harness.proxy.url}/responses`, {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode("x".repeat(400)))
          controller.close()
        },
      }),
      duplex: "half",
    } as RequestInit)
    expect(chunked.status).toBe(413)
    const messages = await fetch(`${harness.proxy.url}/messages`, { method: "POST", body: big })
    expect(await messages.json()).toMatchObject({ type: "error", error: { type: "request_too_large" } })
    expect(harness.upstream.requests).toHaveLength(0)
  })

  it("400 for malformed JSON, a non-object body, and a stream flag of the wrong type", async () => {
    harness = await startHarness([{ content: "still serving" }])
    for (const body of [
      "{",
      "[1,2]",
      '"text"',
      JSON.stringify({ model: "m", messages: [], stream: "yes" }),
    ]) {
      const response = await fetch(`${harness.proxy.url}/chat/completions`, { method: "POST", body })
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe(
        "invalid_request_error",
      )
    }
    expect(harness.upstream.requests).toHaveLength(0)
    const ok = await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    })
    expect(ok.status).toBe(200)
  })

  it("400 for a field the proxy reads of a kind its protocol does not allow, in each protocol's shape", async () => {
    harness = await startHarness([{ content: "still serving" }])
    const cases: [string, Record<string, unknown>, string][] = [
      ["/chat/completions", { model: "m", messages: [], tools: { name: "x" } }, "'tools' must be an array."],
      ["/chat/completions", { model: "m", messages: "hi" }, "'messages' must be an array."],
      [
        "/chat/completions",
        { model: "m", messages: [], tool_choice: 42 },
        "'tool_choice' must be a string or an object.",
      ],
      ["/responses", { model: "m", input: 7 }, "'input' must be a string or an array."],
      ["/responses", { model: "m", input: "hi", instructions: ["x"] }, "'instructions' must be a string."],
      [
        "/messages",
        { model: "m", max_tokens: 9, messages: [], tool_choice: "auto" },
        "'tool_choice' must be an object.",
      ],
      [
        "/messages",
        { model: "m", max_tokens: 9, messages: [], system: 1 },
        "'system' must be a string or an array.",
      ],
    ]
    for (const [path, body, message] of cases) {
      const response = await fetch(`${harness.proxy.url}${path}`, {
        method: "POST",
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(400)
      const error = (await response.json()) as { type?: string; error: { type: string; message: string } }
      expect(error.error).toMatchObject({ type: "invalid_request_error", message })
      expect(error.type).toBe(path === "/messages" ? "error" : undefined)
    }
    expect(harness.upstream.requests).toHaveLength(0)
  })

  it("fields outside what the proxy reads go upstream as they came (model servers extend the protocols)", async () => {
    harness = await startHarness([{ content: "still serving" }])
    const body = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [READ_FILE_TOOL],
      chat_template_kwargs: { enable_thinking: false },
      top_k: 20,
      tool_choice: null,
    })
    const response = await fetch(`${harness.proxy.url}/chat/completions`, { method: "POST", body })
    expect(response.status).toBe(200)
    expect(harness.upstream.requests[0]?.body).toEqual(JSON.parse(body))
  })

  it("a header-injection attempt (a bare CR in a header value) is refused before the handler", async () => {
    harness = await startHarness([{ content: "still serving" }])
    const { port } = new URL(harness.proxy.url)
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Evil: a\rAuthorization: Bearer injected\r\nContent-Length: 2\r\n\r\n{}",
        )
      })
      let data = ""
      socket.on("data", (chunk) => {
        data += chunk.toString("latin1")
      })
      socket.on("close", () => resolve(data))
      socket.on("error", reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 400/)
    expect(harness.upstream.requests).toHaveLength(0)
    const ok = await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    })
    expect(ok.status).toBe(200)
  })
})
