import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

/** A body whose bytes JSON.stringify would not reproduce (spacing, key order, escapes). */
const oddBytes = (extra: string) =>
  `{ "model" :"m","messages":[{"role":"user","content":"caf\\u00e9 <tool_call>"}]${extra}  }\n`

describe("pass-through (raw fetch)", () => {
  it("a request without tools reaches the upstream byte for byte, and its leak-looking answer comes back untouched", async () => {
    harness = await startHarness([{ content: QWEN_LEAK, chunkSize: 4 }])
    const body = oddBytes(`,"stream":true`)
    const response = await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k1", "x-custom": "kept" },
      body,
    })
    const text = await response.text()
    expect(harness.upstream.requests[0]!.rawBody).toBe(body)
    expect(harness.upstream.requests[0]!.headers["x-custom"]).toBe("kept")
    expect(harness.upstream.requests[0]!.headers["x-api-key"]).toBe("k1")
    const content = text
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "")
      .join("")
    expect(content).toBe(QWEN_LEAK)
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true)
    expect(harness.turns()).toBe(1)
  })

  it('tool_choice "none" passes the bytes through too', async () => {
    harness = await startHarness([{ content: QWEN_LEAK }])
    const body = oddBytes(`,"tools":[${JSON.stringify(READ_FILE_TOOL)}],"tool_choice":"none"`)
    const response = await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    })
    const completion = (await response.json()) as { choices: Array<{ message: { content: string } }> }
    expect(completion.choices[0]!.message.content).toBe(QWEN_LEAK)
    expect(harness.upstream.requests[0]!.rawBody).toBe(body)
  })

  it("a recovered route's first attempt also sends the client's bytes unchanged", async () => {
    harness = await startHarness([{ content: "Hello." }])
    const body = oddBytes(`,"tools":[${JSON.stringify(READ_FILE_TOOL)}]`)
    await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }).then((r) => r.text())
    expect(harness.upstream.requests[0]!.rawBody).toBe(body)
  })

  it("other paths pass through with their status, and the proxy's own /healthz and /metrics answer", async () => {
    harness = await startHarness([])
    const models = await fetch(`${harness.proxy.url}/models?limit=1`)
    expect(models.status).toBe(200)
    expect(harness.upstream.requests[0]!.path).toBe("/v1/models")
    const missing = await fetch(`${harness.proxy.url}/embeddings`, { method: "POST", body: "{}" })
    expect(missing.status).toBe(404)
    expect(harness.upstream.requests[1]!.path).toBe("/v1/embeddings")
    expect(harness.upstream.requests[1]!.rawBody).toBe("{}")
    const origin = harness.proxy.url.replace(/\/v1$/, "")
    expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({ status: "ok" })
    const metrics = await (await fetch(`${origin}/metrics`)).text()
    expect(metrics).toContain(
      'tool_rescue_proxy_requests_total{protocol="other",mode="passthrough",model="unknown"} 2',
    )
  })

  it("the upstream comes from configuration only: a Host header or absolute URL naming another server is ignored", async () => {
    harness = await startHarness([])
    const { request } = await import("node:http")
    const url = new URL(harness.proxy.url)
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: "http://169.254.169.254/v1/models",
          headers: { host: "evil.example" },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on("error", reject)
      req.end()
    })
    expect(status).toBe(200)
    expect(harness.upstream.requests.map((r) => r.path)).toEqual(["/v1/models"])
  })
})
