import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/**
 * Options of {@link startProxyServer}: the proxy's, plus where to listen.
 *
 * @example
 * ```ts
 * import type { ProxyServerOptions } from "@tool-rescue/proxy/node"
 *
 * const options: ProxyServerOptions = { upstream: "http://127.0.0.1:11434/v1", port: 8787 }
 * ```
 */
export interface ProxyServerOptions extends ProxyOptions {
  /** @defaultValue 8787; 0 picks a free port */
  readonly port?: number
  /** Only loopback unless you say otherwise. @defaultValue "127.0.0.1" */
  readonly host?: string
  /** Milliseconds `close()` lets in-flight requests finish before it cuts them. @defaultValue 10000 */
  readonly graceMs?: number
}

/**
 * A running proxy server.
 *
 * @example
 * ```ts
 * import { startProxyServer } from "@tool-rescue/proxy/node"
 *
 * const server = await startProxyServer({ upstream: "http://127.0.0.1:11434/v1", port: 0 })
 * console.log(server.url) // http://127.0.0.1:PORT/v1, the base URL clients use
 * await server.close()
 * ```
 */
export interface ProxyServer {
  /** The base URL clients use: `http://HOST:PORT/v1`. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly proxy: ToolRescueProxy
  /**
   * Stops accepting connections, lets in-flight requests finish for `graceMs`, then cuts what is
   * left. Resolves when the server is closed.
   */
  close(): Promise<void>
}

/**
 * Whether a response body failed the way upstreams do: its connection was cut, or it stalled
 * past `upstreamIdleTimeoutMs`. Anything else is a bug and is left to the server to log.
 */
function isUpstreamEnd(error: unknown): boolean {
  return UpstreamFailure.isInstance(error) && (error.kind === "cut" || error.kind === "timeout")
}

/**
 * `body` for `@hono/node-server`, which logs every error of a response body (`console.error`,
 * e.g. undici's `TypeError: terminated` for a cut upstream): a cut or stalled upstream stream
 * (counted in the proxy's metrics already) cuts the client's connection instead, with nothing
 * logged — the server's close listener then cancels this stream. Pulled on demand: nothing is
 * buffered here.
 */
function cutQuietly(body: ReadableStream<Uint8Array>, connection: { destroy(): void }) {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>
        try {
          next = await reader.read()
        } catch (error) {
          if (!isUpstreamEnd(error)) throw error
          connection.destroy()
          return
        }
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
}

/**
 * `proxy.fetch` for `@hono/node-server`. SSE responses are marked `transfer-encoding: chunked`:
 * without it, the server reads up to three chunks of a body (waiting a timer tick for the
 * second) to compute a `content-length`, which delays the first event of every stream. Their
 * bodies end quietly when the upstream's stream is cut ({@link cutQuietly}).
 */
function streamingFetch(proxy: ToolRescueProxy) {
  return async (request: Request, env: { outgoing: { destroy(): void } }): Promise<Response> => {
    const response = await proxy.fetch(request)
    if (response.body === null || !(response.headers.get("content-type") ?? "").includes("text/event-stream"))
      return response
    const headers = new Headers(response.headers)
    headers.set("transfer-encoding", "chunked")
    return new Response(cutQuietly(response.body, env.outgoing), { status: response.status, headers })
  }
}

/**
 * Starts the proxy on Node (`@hono/node-server`), bound to 127.0.0.1 unless `host` says
 * otherwise.
 *
 * @example
 * ```ts
 * import { startProxyServer } from "@tool-rescue/proxy/node"
 *
 * const server = await startProxyServer({ upstream: "http://127.0.0.1:8000/v1" })
 * process.once("SIGTERM", () => void server.close())
 * ```
 */
export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const { port = 8787, host = "127.0.0.1", graceMs = 10_000, ...proxyOptions } = options
  const proxy = createProxy(proxyOptions)
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    // Leave the process's global Request/Response alone: the proxy may share it with other code.
    const started = serve(
      { fetch: streamingFetch(proxy), port, hostname: host, overrideGlobalObjects: false },
      () => {
        started.off("error", reject)
        resolve(started)
      },
    )
    started.once("error", reject)
  })
  const address = server.address() as AddressInfo
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${shown}:${address.port}/v1`,
    host: address.address,
    port: address.port,
    proxy,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const cut = setTimeout(() => {
          if ("closeAllConnections" in server) server.closeAllConnections()
        }, graceMs)
        // A keep-alive connection whose last request finishes during the grace period is idle
        // from then on: close it then, not at the keep-alive timeout.
        const sweep = setInterval(() => {
          if ("closeIdleConnections" in server) server.closeIdleConnections()
        }, 25)
        server.close(() => {
          clearTimeout(cut)
          clearInterval(sweep)
          resolve()
        })
        if ("closeIdleConnections" in server) server.closeIdleConnections()
      })
      return closing
    },
  }
}
