import type { RecoveryOptions } from "@tool-rescue/recovery"
import { resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { Hono } from "hono"
import type { Registry } from "prom-client"
import { EndedTurns } from "./ended-turns.ts"
import { fetchUpstream } from "./fetch-upstream.ts"
import { passThrough } from "./pass-through.ts"
import type { ProtocolName } from "./protocol.ts"
import { protocols } from "./protocols.ts"
import type { ProxyContext, ProxyEnv, SendUpstream, UpstreamLimits } from "./proxy-context.ts"
import { createProxyMetrics, type ProxyMetrics } from "./proxy-metrics.ts"
import { recoverRequest } from "./recover-request.ts"
import { upstreamUrl } from "./upstream-url.ts"

/**
 * Options of {@link createProxy}: the upstream and limits, plus the recovery options every
 * adapter takes (`persistFailed`, `onEvent`, `maxRecoveries`, `instructionPlacement`,
 * `evidence`, `reasoning`, …).
 *
 * @example
 * ```ts
 * import type { ProxyOptions } from "@tool-rescue/proxy"
 *
 * const options: ProxyOptions = {
 *   upstream: "http://127.0.0.1:11434/v1",
 *   persistFailed: async (failed) => console.warn("leak in round", failed.round),
 * }
 * ```
 */
export interface ProxyOptions extends RecoveryOptions {
  /** The server every request goes to, e.g. `http://127.0.0.1:11434/v1`. Never taken from a request. */
  readonly upstream: string | URL
  /** Largest request body of a recovered route, in bytes (413 beyond it). @defaultValue 33554432 (32 MiB) */
  readonly maxBodyBytes?: number
  /**
   * Milliseconds to wait for the upstream's response headers (504 beyond it). On the Node entry
   * (`startProxyServer`, undici's own timers) the connection and the headers are each bounded by
   * it, at about a second's resolution. @defaultValue 300000
   */
  readonly upstreamTimeoutMs?: number
  /**
   * Milliseconds the upstream may stay silent once its headers are in: a read of its body (a
   * stream, or a JSON body) that waits longer aborts the upstream request. The client gets the
   * protocol's error (`upstream-timeout`): a 504 error body, or, in a recovered stream, the
   * protocol's error event; a passed-through stream is cut. Never retried. A client that reads
   * slowly holds the upstream back and does not make it idle. On the Node entry this is undici's
   * `bodyTimeout`, at about a second's resolution.
   * @defaultValue 300000
   */
  readonly upstreamIdleTimeoutMs?: number
  /**
   * The fetch used for upstream requests (the timeouts are then the proxy's own timers).
   * @defaultValue `globalThis.fetch`; undici's `request` on the Node entry
   */
  readonly fetch?: typeof globalThis.fetch
  /**
   * The prom-client registry `/metrics` serves the proxy's metrics from (your app's, to add
   * yours or to serve ours from your own endpoint). @defaultValue a registry of the proxy's own
   */
  readonly metricsRegistry?: Registry
}

/**
 * A proxy: a web-standard handler and its counters.
 *
 * @example
 * ```ts
 * import { createProxy } from "@tool-rescue/proxy"
 *
 * const proxy = createProxy({ upstream: "http://127.0.0.1:11434/v1" })
 * const response = await proxy.fetch(new Request("http://127.0.0.1:8787/healthz"))
 * ```
 */
export interface ToolRescueProxy {
  /** Handles one request (the signature of `fetch`, Bun's and Deno's `serve`). */
  fetch(request: Request): Promise<Response>
  readonly metrics: ProxyMetrics
}

/** Internal: the proxy as the Node entry uses it (a request's {@link ProxyEnv} besides it). */
export interface ProxyHandler {
  fetch(request: Request, env?: ProxyEnv): Promise<Response>
  readonly metrics: ProxyMetrics
}

/** How upstream requests are sent: by default through `fetch` ({@link fetchUpstream}). */
export type UpstreamClient = (limits: UpstreamLimits) => SendUpstream

/** The recovered routes: the path clients use under their `/v1` base URL. */
const ROUTES: ReadonlyArray<readonly [string, ProtocolName]> = [
  ["/v1/chat/completions", "chat"],
  ["/v1/responses", "responses"],
  ["/v1/messages", "messages"],
]

const MIB = 1024 * 1024

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`tool-rescue proxy: ${name} must be a positive number`)
  return value
}

function upstreamOf(value: string | URL): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new TypeError(
      `tool-rescue proxy: upstream must be an http(s) URL, got ${JSON.stringify(String(value))}`,
    )
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError(`tool-rescue proxy: upstream must be an http(s) URL, got ${url.protocol}`)
  return url
}

/**
 * Creates the recovery proxy as a web-standard `Request → Response` handler (Hono inside, so it
 * runs on Node, Bun and Deno: prom-client, its metrics client, needs Node's built-ins). Routes:
 * - `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages`: recovered, streaming
 *   and not (the same contract as the library adapters, per request);
 * - `GET /healthz`: `{"status":"ok"}`; `GET /metrics`: Prometheus text;
 * - everything else: passed through to the upstream untouched.
 *
 * Invalid options (no upstream, a non-http URL, invalid recovery options) throw at once.
 *
 * @example
 * ```ts
 * import { createProxy } from "@tool-rescue/proxy"
 *
 * const proxy = createProxy({ upstream: "http://127.0.0.1:8000/v1", maxRecoveries: 1 })
 * export default { fetch: proxy.fetch } // Bun's and Deno's `serve`
 * ```
 */
export function createProxy(options: ProxyOptions): ToolRescueProxy {
  const { fetch, metrics } = createProxyHandler(options)
  return { fetch: (request) => fetch(request), metrics }
}

/**
 * Internal: {@link createProxy}, with the upstream client chosen by the host (`upstream`, used
 * when `options.fetch` is not given) and a {@link ProxyEnv} per request.
 */
export function createProxyHandler(options: ProxyOptions, upstreamClient?: UpstreamClient): ProxyHandler {
  if (typeof options !== "object" || options === null)
    throw new TypeError("tool-rescue proxy: options are required")
  const {
    upstream,
    maxBodyBytes,
    upstreamTimeoutMs,
    upstreamIdleTimeoutMs,
    fetch,
    metricsRegistry,
    ...recovery
  } = options
  const resolved = resolveRecoveryOptions(recovery)
  const metrics = createProxyMetrics(metricsRegistry === undefined ? {} : { registry: metricsRegistry })
  const limits: UpstreamLimits = {
    timeoutMs: positive("upstreamTimeoutMs", upstreamTimeoutMs, 300_000),
    idleMs: positive("upstreamIdleTimeoutMs", upstreamIdleTimeoutMs, 300_000),
    failed: (kind) => metrics.upstreamFailure(kind),
  }
  const send =
    fetch !== undefined || upstreamClient === undefined
      ? fetchUpstream(fetch ?? ((input, init) => globalThis.fetch(input, init)), limits)
      : upstreamClient(limits)
  const upstreamUrlOf = upstreamOf(upstream)
  const context: ProxyContext = {
    upstream: upstreamUrlOf,
    routeTargets: new Map(ROUTES.map(([path]) => [path, upstreamUrl(upstreamUrlOf, path, "").href])),
    resolved,
    maxBodyBytes: positive("maxBodyBytes", maxBodyBytes, 32 * MIB),
    send,
    metrics,
    endedTurns: new EndedTurns(),
  }

  const app = new Hono<{ Bindings: ProxyEnv }>()
  app.get("/healthz", (c) => c.json({ status: "ok" }))
  app.get("/metrics", async (c) =>
    c.body(await metrics.render(), 200, { "content-type": metrics.contentType }),
  )
  for (const [path, name] of ROUTES)
    app.post(path, (c) => recoverRequest(protocols[name], c.req.raw, context, c.env as ProxyEnv | undefined))
  // Every other path and method: the not-found handler, not a catch-all route, so a recovered
  // route's request matches one handler (Hono then calls it directly, with no middleware chain).
  app.notFound((c) => {
    metrics.request("other", "passthrough")
    const env = c.env as ProxyEnv | undefined
    return passThrough(c.req.raw, context, undefined, env?.rawHeaders ?? c.req.raw.headers, env?.sink)
  })

  return { fetch: async (request, env) => app.fetch(request, env), metrics }
}
