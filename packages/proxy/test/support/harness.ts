/**
 * Test harness: a replay server as the upstream and a proxy started as a user starts it
 * (`startProxyServer`, a real socket on 127.0.0.1), both closed after the test.
 */
import type { FailedResponse, RecoveryEvent } from "@tool-rescue/recovery"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { type ProxyServer, type ProxyServerOptions, startProxyServer } from "../../src/node.ts"

export interface Harness {
  readonly upstream: ReplayServer
  readonly proxy: ProxyServer
  readonly events: RecoveryEvent[]
  readonly failed: FailedResponse[]
  /** Requests the upstream got for recovered routes (models and malformed ones excluded). */
  turns(): number
  close(): Promise<void>
}

export async function startHarness(
  script: ReplayScript,
  options: Partial<ProxyServerOptions> = {},
): Promise<Harness> {
  const upstream = await startReplayServer({ script })
  const events: RecoveryEvent[] = []
  const failed: FailedResponse[] = []
  const proxy = await startProxyServer({
    upstream: upstream.url,
    port: 0,
    graceMs: 100,
    onEvent: (event) => events.push(event),
    persistFailed: (response) => {
      failed.push(response)
    },
    ...options,
  })
  return {
    upstream,
    proxy,
    events,
    failed,
    turns: () =>
      upstream.requests.filter((r) => r.api === "chat" || r.api === "responses" || r.path === "/v1/messages")
        .length,
    async close() {
      await proxy.close()
      await upstream.close()
    },
  }
}

/** Qwen3-Coder's leak of a read_file call, as the model writes it. */
export const QWEN_LEAK =
  "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

export const READ_FILE_TOOL = {
  type: "function",
  function: {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
} as const
