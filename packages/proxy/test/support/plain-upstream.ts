/**
 * A proxy started as users start it (`startProxyServer`) in front of a plain node:http upstream
 * whose every answer the test writes itself — for what the replay server does not do (a
 * compressed body, a redirect, an event held open).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type ProxyServer, type ProxyServerOptions, startProxyServer } from "../../src/node.ts"

/** A request the upstream received. */
export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

export interface PlainUpstream {
  readonly proxy: ProxyServer
  readonly seen: Seen[]
  /** Closes the proxy, then the upstream (its open connections cut). */
  close(): Promise<void>
}

/** `answer` gets each request once its body is read; `options` are the proxy's (`fetch`, …). */
export async function startPlainUpstream(
  answer: (request: Seen, response: ServerResponse) => void,
  options: Partial<ProxyServerOptions> = {},
): Promise<PlainUpstream> {
  const seen: Seen[] = []
  const server = createServer(async (request, response) => {
    const parts: Buffer[] = []
    for await (const part of request) parts.push(part as Buffer)
    const entry = {
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(parts).toString("utf8"),
    }
    seen.push(entry)
    answer(entry, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const proxy = await startProxyServer({
    upstream: `http://127.0.0.1:${port}/v1`,
    port: 0,
    graceMs: 50,
    ...options,
  })
  return {
    proxy,
    seen,
    close: async () => {
      await proxy.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
