import { startReplayServer } from "@tool-rescue/testing"
import { describe, expect, it } from "vitest"
import { startProxyServer } from "../src/node.ts"
import { READ_FILE_TOOL, streamedChat } from "./support/harness.ts"

describe("graceful shutdown", () => {
  it("close() stops accepting, lets an in-flight stream finish within the grace period, then resolves", async () => {
    const upstream = await startReplayServer({
      script: [{ content: "one two three four five six", chunkSize: 4, chunkDelayMs: 20 }],
    })
    const proxy = await startProxyServer({ upstream: upstream.url, port: 0, graceMs: 20_000 })
    try {
      const response = await fetch(`${proxy.url}/chat/completions`, streamedChat())
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = decoder.decode((await reader.read()).value, { stream: true })
      let closed = false
      const closing = proxy.close().then(() => {
        closed = true
      })
      // A new connection is refused while the in-flight turn goes on.
      const refused = await fetch(`${proxy.url.replace(/\/v1$/, "")}/healthz`, {
        headers: { connection: "close" },
      }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(Error)
      expect(closed).toBe(false)
      for (;;) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += decoder.decode(chunk.value, { stream: true })
      }
      const content = text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "")
        .join("")
      expect(content).toBe("one two three four five six")
      await closing
      expect(closed).toBe(true)
    } finally {
      await proxy.close()
      await upstream.close()
    }
  })

  it("cuts what is left after the grace period", async () => {
    const upstream = await startReplayServer({ script: [{ content: "never ends", latencyMs: 60_000 }] })
    const proxy = await startProxyServer({ upstream: upstream.url, port: 0, graceMs: 50 })
    try {
      const pending = fetch(`${proxy.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "go" }],
          tools: [READ_FILE_TOOL],
        }),
      }).catch((error: unknown) => error)
      while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      await proxy.close()
      expect(await pending).toBeInstanceOf(Error)
    } finally {
      await upstream.close()
    }
  })
})
