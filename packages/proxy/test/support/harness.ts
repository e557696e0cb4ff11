/**
 * Test harness: a replay server as the upstream and a proxy started as a user starts it
 * (`startProxyServer`, a real socket on 127.0.0.1), both closed after the test. With
 * `entry: "web"`, the proxy is the portable handler instead (`createProxy`, upstream requests
 * through `fetch`, streams as web `Response` bodies) served by `@hono/node-server`, as a user of
 * `createProxy` serves it on Node (Bun's and Deno's `serve` take the same `fetch`).
 */
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import type { FailedResponse, RecoveryEvent } from "@tool-rescue/recovery"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { afterEach } from "vitest"
import { createProxy } from "../../src/index.ts"
import {
  type ProxyLogger,
  type ProxyServer,
  type ProxyServerOptions,
  startProxyServer,
} from "../../src/node.ts"

/** How the proxy under test is started: the Node entry, or the portable web handler. */
export type ProxyEntry = "node" | "web"

export interface HarnessOptions extends Partial<ProxyServerOptions> {
  /** @defaultValue "node" */
  readonly entry?: ProxyEntry
}

/** `createProxy(options).fetch` served on 127.0.0.1 (the web handler's path, end to end). */
async function startWebProxy(options: ProxyServerOptions): Promise<ProxyServer> {
  const { port = 0, host = "127.0.0.1", graceMs: _, ...proxyOptions } = options
  const proxy = createProxy(proxyOptions)
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: proxy.fetch, port, hostname: host, overrideGlobalObjects: false }, () =>
      resolve(started),
    )
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://${address.address}:${address.port}/v1`,
    host: address.address,
    port: address.port,
    loopback: true,
    proxy,
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface Harness {
  readonly upstream: ReplayServer
  readonly proxy: ProxyServer
  readonly events: RecoveryEvent[]
  readonly failed: FailedResponse[]
  /** Requests the upstream got for recovered routes (models and malformed ones excluded). */
  turns(): number
  close(): Promise<void>
}

export async function startHarness(script: ReplayScript, options: HarnessOptions = {}): Promise<Harness> {
  const { entry = "node", ...proxyOptions } = options
  const upstream = await startReplayServer({ script })
  const events: RecoveryEvent[] = []
  const failed: FailedResponse[] = []
  const proxy = await (entry === "node" ? startProxyServer : startWebProxy)({
    upstream: upstream.url,
    port: 0,
    graceMs: 100,
    onEvent: (event) => events.push(event),
    persistFailed: (response) => {
      failed.push(response)
    },
    ...proxyOptions,
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
/**
 * `startHarness` for the tests of one file, each harness closed after its test: the one
 * `afterEach` every protocol test file would otherwise repeat.
 */
export function harnessPerTest(): (script: ReplayScript, options?: HarnessOptions) => Promise<Harness> {
  let open: Harness | undefined
  afterEach(async () => {
    await open?.close()
    open = undefined
  })
  return async (script, options) => {
    open = await startHarness(script, options)
    return open
  }
}

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

/** A streamed Chat Completions request as an agent sends it: one user message, `tools` offered. */
export function streamedChat(tools: readonly unknown[] = [READ_FILE_TOOL]): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }], tools }),
  }
}

/** A pino-shaped logger that keeps its lines (fields, level and message) for a test to read. */
export function captureLogger(): {
  readonly logger: ProxyLogger
  readonly lines: Array<Record<string, unknown>>
} {
  const lines: Array<Record<string, unknown>> = []
  const at = (level: string) => (fields: object, msg: string) => void lines.push({ level, ...fields, msg })
  return { logger: { info: at("info"), warn: at("warn"), error: at("error") }, lines }
}
