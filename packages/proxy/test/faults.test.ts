import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fc, it as prop } from "@fast-check/vitest"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { startProxyServer } from "../src/node.ts"
import { type Harness, QWEN_LEAK, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const request = {
  model: "m",
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [READ_FILE_TOOL],
}
const client = (h: Harness) => new OpenAI({ baseURL: h.proxy.url, apiKey: "sk-test", maxRetries: 0 })

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  return undefined
}

async function drain(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<string> {
  let text = ""
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
  return text
}

describe("upstream errors are passed through and never retried", () => {
  for (const status of [500, 429]) {
    it(`HTTP ${status} on the first attempt reaches the client unchanged (streaming and not)`, async () => {
      harness = await startHarness([
        { httpError: { status, message: `upstream says ${status}`, code: "upstream_code" } },
        { httpError: { status, message: `upstream says ${status}`, code: "upstream_code" } },
      ])
      const error = (await caught(client(harness).chat.completions.create(request))) as InstanceType<
        typeof OpenAI.APIError
      >
      expect(error.status).toBe(status)
      expect(error.message).toContain(`upstream says ${status}`)
      expect(error.code).toBe("upstream_code")
      const streamed = (await caught(
        client(harness).chat.completions.create({ ...request, stream: true }),
      )) as InstanceType<typeof OpenAI.APIError>
      expect(streamed.status).toBe(status)
      expect(harness.turns()).toBe(2)
      expect(harness.failed).toHaveLength(0)
    })

    it(`HTTP ${status} on the retry ends the turn with the upstream's error (streaming: an error event)`, async () => {
      harness = await startHarness([
        { content: QWEN_LEAK },
        { httpError: { status, message: "retry refused", code: "retry_code" } },
        { content: QWEN_LEAK, chunkSize: 7 },
        { httpError: { status, message: "retry refused", code: "retry_code" } },
      ])
      const error = (await caught(client(harness).chat.completions.create(request))) as InstanceType<
        typeof OpenAI.APIError
      >
      expect(error.status).toBe(status)
      expect(error.code).toBe("retry_code")
      const stream = await client(harness).chat.completions.create({ ...request, stream: true })
      const streamed = (await caught(drain(stream))) as InstanceType<typeof OpenAI.APIError>
      expect(streamed).toBeInstanceOf(OpenAI.APIError)
      expect(streamed.code).toBe("retry_code")
      expect(harness.turns()).toBe(4)
    })
  }

  it("a mid-stream error event of the first attempt is passed on and not retried, even after a leak", async () => {
    harness = await startHarness([
      {
        content: QWEN_LEAK,
        chunkSize: 10,
        interrupt: { kind: "error", afterChunks: 8, error: { code: "boom" } },
      },
    ])
    const stream = await client(harness).chat.completions.create({ ...request, stream: true })
    const error = (await caught(drain(stream))) as InstanceType<typeof OpenAI.APIError>
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(error.code).toBe("boom")
    expect(harness.turns()).toBe(1)
  })

  it("a cut upstream stream cuts the client's stream and is not retried", async () => {
    harness = await startHarness([
      { content: QWEN_LEAK, chunkSize: 10, interrupt: { kind: "drop", afterChunks: 8 } },
    ])
    const stream = await client(harness).chat.completions.create({ ...request, stream: true })
    const error = await caught(drain(stream))
    expect(error).toBeInstanceOf(Error)
    expect(harness.turns()).toBe(1)
  })

  it("an upstream that does not answer in time is a 504 in the protocol's shape", async () => {
    harness = await startHarness([{ content: "late", latencyMs: 20_000 }], { upstreamTimeoutMs: 100 })
    const error = (await caught(client(harness).chat.completions.create(request))) as InstanceType<
      typeof OpenAI.APIError
    >
    expect(error.status).toBe(504)
    expect(error.code).toBe("upstream-timeout")
  })

  it("an unreachable upstream is a 502", async () => {
    const closed = await startHarness([])
    const url = closed.upstream.url
    await closed.close()
    const proxy = await startProxyServer({ upstream: url, port: 0 })
    try {
      const response = await fetch(`${proxy.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify(request),
      })
      expect(response.status).toBe(502)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("upstream-unreachable")
    } finally {
      await proxy.close()
    }
  })
})

/** An upstream that streams a leak slowly and records whether each response was cut by its client. */
async function slowUpstream(chunks: readonly string[], delayMs: number) {
  const cut: boolean[] = []
  let requests = 0
  const server: Server = createServer((incoming, response) => {
    requests++
    incoming.resume()
    const index = cut.push(false) - 1
    response.on("close", () => {
      if (!response.writableEnded) cut[index] = true
    })
    response.writeHead(200, { "content-type": "text/event-stream" })
    let i = 0
    const timer = setInterval(() => {
      if (response.destroyed) return clearInterval(timer)
      if (i === chunks.length) {
        clearInterval(timer)
        response.end("data: [DONE]\n\n")
        return
      }
      const chunk = {
        id: "c",
        object: "chat.completion.chunk",
        created: 0,
        model: "m",
        choices: [{ index: 0, delta: { content: chunks[i++] }, finish_reason: null }],
      }
      response.write(`data: ${JSON.stringify(chunk)}\n\n`)
    }, delayMs)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    cut,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe("a client that disconnects", () => {
  const leakChunks = ["Reading ", "it.\n", ...QWEN_LEAK.match(/.{1,6}/gs)!]

  prop.prop([fc.integer({ min: 1, max: leakChunks.length - 1 })], { numRuns: 6 })(
    "aborts the upstream request, and no retry starts (disconnect after any number of chunks)",
    async (readChunks) => {
      const upstream = await slowUpstream(leakChunks, 5)
      const proxy = await startProxyServer({ upstream: upstream.url, port: 0 })
      try {
        const controller = new AbortController()
        const response = await fetch(`${proxy.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...request, stream: true }),
          signal: controller.signal,
        })
        const reader = response.body!.getReader()
        // Read until the upstream has sent `readChunks` chunks (the proxy may hold some back).
        while (upstream.cut.length === 0) await new Promise((r) => setTimeout(r, 1))
        await reader.read()
        await new Promise((r) => setTimeout(r, readChunks * 5))
        controller.abort()
        // Wait until the proxy has closed the upstream response, or the upstream has finished.
        for (let i = 0; i < 400 && upstream.cut[0] === false; i++) await new Promise((r) => setTimeout(r, 5))
        // Enough time for a retry to have been sent if the proxy were going to send one.
        await new Promise((r) => setTimeout(r, leakChunks.length * 5 + 50))
        expect(upstream.requests()).toBe(1)
        expect(upstream.cut[0]).toBe(true)
      } finally {
        await proxy.close()
        await upstream.close()
      }
    },
    120_000,
  )
})
