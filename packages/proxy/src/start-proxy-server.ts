import { IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
// One shared response that tells the server the response was written already (no response per request).
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response"
import { chatCompletions } from "@tool-rescue/wire"
import {
  createProxyHandler,
  type ProxyHandler,
  type ProxyOptions,
  type ToolRescueProxy,
} from "./create-proxy.ts"
import type { OnClientGone, StreamSink } from "./proxy-context.ts"
import { isLoopback } from "./request-guard.ts"
import { undiciUpstream } from "./undici-upstream.ts"
import {
  type EventStreamOutgoing,
  endStreams,
  type OpenStreams,
  writeEventStream,
} from "./write-event-stream.ts"

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
  /**
   * Milliseconds `close()` lets in-flight requests finish before it cuts them (an event stream of
   * a recovered route still open is ended with its protocol's error event, code
   * `proxy-shutdown`). @defaultValue 10000
   */
  readonly graceMs?: number
  /**
   * Milliseconds a client may leave its request body silent before the proxy answers 408 and
   * closes the connection (a body trickled byte by byte is cut at this, not only at Node's
   * whole-request limit, 300 s). @defaultValue 30000
   */
  readonly requestIdleTimeoutMs?: number
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
  /**
   * The server listens on a loopback address only (`127.0.0.1`, `::1`): no other machine can
   * reach it. `false` for `0.0.0.0` or a network address: anyone who reaches the port uses the
   * upstream through it, unless `apiKey` is set (`tool-rescue serve` warns then).
   */
  readonly loopback: boolean
  readonly proxy: ToolRescueProxy
  /**
   * Stops accepting connections, lets in-flight requests finish for `graceMs`, then cuts what is
   * left. Resolves when the server is closed.
   */
  close(): Promise<void>
}

/** The 408 a request whose body went silent gets (OpenAI-shaped: the path's protocol is not known here). */
const BODY_IDLE = JSON.stringify(
  chatCompletions.errors.body({
    type: chatCompletions.errors.types["invalid-request"],
    code: "request_timeout",
    message: "The request body stopped arriving.",
  }),
)

/**
 * Bounds the silences of `incoming`'s body (not yet read whole) by `ms`: the socket's own idle
 * timer, armed until the body's end, so a request that arrived whole (the usual case) costs
 * nothing. Past it, the client gets a 408 and the connection is closed.
 */
function boundBodyIdle(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  ms: number,
): { readonly fired: boolean } {
  const { socket } = incoming
  const state = { fired: false }
  const idle = () => {
    state.fired = true
    socket.setTimeout(0)
    if (outgoing.headersSent) {
      socket.destroy()
      return
    }
    outgoing.shouldKeepAlive = false
    outgoing.writeHead(408, { "content-type": "application/json", connection: "close" })
    outgoing.end(BODY_IDLE, () => socket.destroy())
  }
  // A listener on the request: the server then leaves the socket to us instead of destroying it.
  incoming.once("timeout", idle)
  socket.setTimeout(ms)
  incoming.once("end", () => {
    socket.setTimeout(0)
    incoming.off("timeout", idle)
  })
  return state
}

/** How long the error events of streams cut at shutdown may take to reach their connections. */
const FLUSH_MS = 1000

/** Why a recovered request's upstream request is aborted when its client goes away. */
const CLIENT_GONE = Object.assign(new Error("tool-rescue proxy: the client went away"), {
  name: "AbortError",
})

/**
 * `proxy.fetch` for `@hono/node-server`: an event stream, recovered or passed through, goes to
 * the sink and is written by {@link writeEventStream} from its reads (headers at once, a cut
 * upstream stream ends the client's quietly); any other response is the server's to write.
 */
function nodeFetch(proxy: ProxyHandler, streams: OpenStreams, requestIdleMs: number) {
  return async (
    request: Request,
    env: { incoming: { readonly rawHeaders: readonly string[] }; outgoing: EventStreamOutgoing },
  ): Promise<Response> => {
    const sink: StreamSink = (head, body, ending) => {
      writeEventStream(head, body, env.outgoing, streams, ending)
      return RESPONSE_ALREADY_SENT
    }
    const { outgoing } = env
    const onClientGone: OnClientGone = (listener) => {
      // The connection's own event: no request signal (an abort controller and a listener) per request.
      // `on`, not `once`: a response closes once, and `once` would wrap the listener in two more objects.
      if (outgoing.destroyed) listener(CLIENT_GONE)
      else
        outgoing.on("close", () => {
          if (!outgoing.writableFinished) listener(CLIENT_GONE)
        })
    }
    // Every event stream, recovered or passed through, goes to the sink; the rest is the server's.
    const answered = proxy.fetch(request, { sink, rawHeaders: env.incoming.rawHeaders, onClientGone })
    // A body still arriving (HTTP/1.1: an HTTP/2 stream's silences are its session's to bound):
    // once its silence was answered with the 408, whatever the handler answers goes nowhere.
    if (!(env.incoming instanceof IncomingMessage) || env.incoming.complete) return answered
    const idle = boundBodyIdle(env.incoming, env.outgoing as ServerResponse, requestIdleMs)
    return answered.then(
      (response) => (idle.fired ? RESPONSE_ALREADY_SENT : response),
      (error: unknown) => {
        if (idle.fired) return RESPONSE_ALREADY_SENT
        throw error
      },
    )
  }
}

/**
 * Starts the proxy on Node (`@hono/node-server`), bound to 127.0.0.1 unless `host` says
 * otherwise; the Host names it serves are `allowedHosts` plus `host` (see `ProxyOptions`). Upstream requests use undici's `request`, its body read as a Node stream and bounded
 * by undici's own timeouts (a fraction of the memory of `fetch` per open stream), unless `fetch`
 * is given.
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
  const {
    port = 8787,
    host = "127.0.0.1",
    graceMs = 10_000,
    requestIdleTimeoutMs = 30_000,
    allowedHosts = [],
    ...proxyOptions
  } = options
  if (!Number.isFinite(requestIdleTimeoutMs) || requestIdleTimeoutMs <= 0)
    throw new TypeError("tool-rescue proxy: requestIdleTimeoutMs must be a positive number")
  // The name the server is bound to is one its clients use (IP addresses are served anyway).
  const hosts = allowedHosts === true ? true : [...allowedHosts, host]
  // On Node, upstream requests go through undici's `request` unless the caller gives a fetch.
  const handler = createProxyHandler({ ...proxyOptions, allowedHosts: hosts }, undiciUpstream)
  const streams: OpenStreams = new Set()
  const proxy: ToolRescueProxy = { fetch: (request) => handler.fetch(request), metrics: handler.metrics }
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    // Leave the process's global Request/Response alone: the proxy may share it with other code.
    const started = serve(
      {
        fetch: nodeFetch(handler, streams, requestIdleTimeoutMs),
        port,
        hostname: host,
        overrideGlobalObjects: false,
      },
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
    loopback: isLoopback(address.address),
    proxy,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // At the grace period's end, each open event stream ends with its protocol's error event
        // (a client sees why its answer stopped), then every connection left is cut.
        const cut = setTimeout(() => {
          const flushed = setTimeout(closeAll, FLUSH_MS)
          void endStreams(streams).then(() => {
            clearTimeout(flushed)
            closeAll()
          })
        }, graceMs)
        const closeAll = () => {
          if ("closeAllConnections" in server) server.closeAllConnections()
        }
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
