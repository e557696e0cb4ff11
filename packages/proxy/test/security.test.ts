import { request as httpRequest } from "node:http"
import Anthropic from "@anthropic-ai/sdk"
import { startReplayServer } from "@tool-rescue/testing"
import OpenAI from "openai"
import { describe, expect, it, onTestFinished } from "vitest"
import { createProxy } from "../src/index.ts"
import { harnessPerTest, READ_FILE_TOOL } from "./support/harness.ts"

const start = harnessPerTest()
const chat = { model: "m", messages: [{ role: "user" as const, content: "hi" }], tools: [READ_FILE_TOOL] }

/** A request through node:http, whose `Host` header is ours to set (fetch sets its own). */
function send(
  url: string,
  init: { method?: string; path: string; headers?: Record<string, string>; body?: string },
) {
  const target = new URL(url)
  return new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: init.path,
        method: init.method ?? "POST",
        headers: { "content-type": "application/json", ...init.headers },
      },
      (res) => {
        const parts: Buffer[] = []
        res.on("data", (part: Buffer) => parts.push(part))
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8")
          resolve({ status: res.statusCode ?? 0, json: text.startsWith("{") ? JSON.parse(text) : text })
        })
      },
    )
    req.on("error", reject)
    req.end(init.body)
  })
}

describe.each(["node", "web"] as const)("Host allow-list (%s entry), against DNS rebinding", (entry) => {
  it("refuses a Host name it does not know with 403 in the route's error shape, and sends nothing upstream", async () => {
    const h = await start([{ content: "ok" }], { entry })
    const body = JSON.stringify(chat)
    const chatRefused = await send(h.proxy.url, {
      path: "/v1/chat/completions",
      headers: { host: "evil.example" },
      body,
    })
    expect(chatRefused).toEqual({
      status: 403,
      json: { error: expect.objectContaining({ type: "invalid_request_error", code: "host_not_allowed" }) },
    })
    const messages = await send(h.proxy.url, {
      path: "/v1/messages",
      headers: { host: "evil.example:8787" },
      body,
    })
    expect(messages.status).toBe(403)
    expect(messages.json).toMatchObject({ type: "error", error: { type: "permission_error" } })
    const other = await send(h.proxy.url, {
      method: "GET",
      path: "/v1/models",
      headers: { host: "evil.example" },
    })
    expect(other.status).toBe(403)
    expect(h.upstream.requests).toHaveLength(0)
  })

  it("serves localhost, *.localhost, IP addresses and the names added", async () => {
    const h = await start(() => ({ content: "ok" }), { entry, allowedHosts: ["proxy.lan", ".corp.example"] })
    const body = JSON.stringify(chat)
    for (const host of [
      "localhost",
      "app.localhost:1",
      "127.0.0.1:9",
      "[::1]",
      "10.0.0.7",
      "proxy.lan",
      "a.corp.example",
    ])
      expect(
        (await send(h.proxy.url, { path: "/v1/chat/completions", headers: { host }, body })).status,
        host,
      ).toBe(200)
    expect(
      (await send(h.proxy.url, { path: "/v1/chat/completions", headers: { host: "proxy.lan.evil" }, body }))
        .status,
    ).toBe(403)
  })

  it("allowedHosts: true serves any Host", async () => {
    const h = await start([{ content: "ok" }], { entry, allowedHosts: true })
    const reply = await send(h.proxy.url, {
      path: "/v1/chat/completions",
      headers: { host: "evil.example" },
      body: JSON.stringify(chat),
    })
    expect(reply.status).toBe(200)
  })
})

describe("apiKey: a shared proxy serves only the clients that present it", () => {
  it("401 in each protocol's error shape without it; /healthz stays open", async () => {
    const h = await start([{ content: "ok" }], { apiKey: "proxy-key" })
    const openai = new OpenAI({ baseURL: h.proxy.url, apiKey: "wrong", maxRetries: 0 })
    const chatError = await openai.chat.completions.create(chat).catch((error: unknown) => error)
    expect(chatError).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((chatError as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_api_key")
    const anthropic = new Anthropic({
      baseURL: h.proxy.url.replace(/\/v1$/, ""),
      apiKey: "wrong",
      maxRetries: 0,
    })
    const messagesError = await anthropic.messages
      .create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error)
    expect(messagesError).toBeInstanceOf(Anthropic.AuthenticationError)
    expect((messagesError as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "authentication_error" },
    })
    expect((await fetch(`${h.proxy.url.replace(/\/v1$/, "")}/healthz`)).status).toBe(200)
    expect(h.upstream.requests).toHaveLength(0)
  })

  it("the header that presents the key is not forwarded; another credential goes upstream as it came", async () => {
    const h = await start(() => ({ content: "ok" }), { apiKey: "proxy-key" })
    const openai = new OpenAI({ baseURL: h.proxy.url, apiKey: "proxy-key", maxRetries: 0 })
    await openai.chat.completions.create(chat)
    await openai.models.list().catch(() => undefined)
    expect(h.upstream.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined])
    // The proxy's key as x-api-key, the upstream's as Authorization.
    const both = await send(h.proxy.url, {
      path: "/v1/messages",
      headers: { "x-api-key": "proxy-key", authorization: "Bearer upstream-key" },
      body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    })
    expect(both.status).toBe(200)
    const last = h.upstream.requests.at(-1)!.headers
    expect([last["x-api-key"], last.authorization]).toEqual([undefined, "Bearer upstream-key"])
  })

  it("an empty key is a mistake, refused at once", () => {
    expect(() => createProxy({ upstream: "http://127.0.0.1:1/v1", apiKey: "" })).toThrow(/apiKey/)
  })
})

describe("credentials in the upstream URL", () => {
  it("go as Basic auth, unless the client sends its own Authorization", async () => {
    const upstream = await startReplayServer({ script: () => ({ content: "ok" }) })
    onTestFinished(() => upstream.close())
    const h = await start(() => undefined, {
      upstream: upstream.url.replace("http://", "http://us%40er:p%C3%A4ss:w@"),
    })
    // The harness's own replay server is unused: requests go to `upstream`.
    const plain = await send(h.proxy.url, { path: "/v1/chat/completions", body: JSON.stringify(chat) })
    expect(plain.status).toBe(200)
    const models = await send(h.proxy.url, { method: "GET", path: "/v1/models" })
    expect(models.status).toBe(200)
    const own = await send(h.proxy.url, {
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer mine" },
      body: JSON.stringify(chat),
    })
    expect(own.status).toBe(200)
    const basic = `Basic ${Buffer.from("us@er:päss:w").toString("base64")}`
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([basic, basic, "Bearer mine"])
  })
})
