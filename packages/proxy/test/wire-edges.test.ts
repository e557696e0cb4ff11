/**
 * Edges of the wire, each through a proxy started as users start it (`startProxyServer`) with
 * raw HTTP (node:http or fetch, no SDK between), against the replay server or a plain node:http
 * upstream that answers the way a hostile or broken server does.
 */
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, startHarness } from "./support/harness.ts"
import { protocolClients } from "./support/protocol-clients.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
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
