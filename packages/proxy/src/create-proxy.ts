import type { RecoveryOptions } from "@tool-rescue/recovery"
import { resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { Hono } from "hono"
import type { Registry } from "prom-client"
import { basicCredentials } from "./basic-credentials.ts"
import { createEndedTurns } from "./ended-turns.ts"
import { fetchUpstream } from "./fetch-upstream.ts"
import { passThrough } from "./pass-through.ts"
import type { ProtocolName } from "./protocol.ts"
import { protocols } from "./protocols.ts"
import type { ProxyContext, ProxyEnv, SendUpstream, UpstreamLimits } from "./proxy-context.ts"
import type { ProxyFailedResponse } from "./proxy-failed-response.ts"
import type { ProxyLogger } from "./proxy-logger.ts"
import { createProxyMetrics, type ProxyMetrics } from "./proxy-metrics.ts"
import { recoverRequest } from "./recover-request.ts"
import { type AllowedHosts, createRequestGuard, type Refusal } from "./request-guard.ts"
import { routePath, upstreamUrl } from "./upstream-url.ts"

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
 *   persistFailed: async (failed) => console.warn(`${failed.format} leak in round ${failed.round}: ${failed.outcome}`),
 * }
 * ```
 */
export interface ProxyOptions extends Omit<RecoveryOptions, "persistFailed"> {
  /**
   * Called with each malformed response the proxy withholds (before its retry, or at the turn's
   * end when none follows), with the protocol and route besides the library's fields. Its
   * failure before a retry ends the turn with `persist-failed` (see `RecoveryOptions`).
   */
  readonly persistFailed?: (failed: ProxyFailedResponse) => void | Promise<void>
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
  /**
   * Host names served besides `localhost`, `*.localhost` and IP addresses (exact names, or
   * `.example.com` for the domain and its subdomains); `true` serves any Host. A request for
   * another Host gets 403: a guard against DNS rebinding, by which a web page would reach a proxy
   * on the user's machine and use the upstream through it. `startProxyServer` adds the name it
   * binds. @defaultValue [] (loopback names and IP addresses only)
   */
  readonly allowedHosts?: AllowedHosts
  /**
   * A key clients must present (`Authorization: Bearer <key>` or `x-api-key: <key>`) when the
   * proxy is shared: 401 in the route's error shape without it (`/healthz` is open). The header
   * that presents it is not forwarded; any other header goes upstream as it came (a client may
   * send the proxy's key as `x-api-key` and the upstream's as `Authorization`).
   * @defaultValue none: every client is served
   */
  readonly apiKey?: string
  /**
   * Where the proxy says what it did: one line per turn that recovered, failed or errored (model,
   * protocol, route, format, offered tools, rounds, milliseconds; never prompts, answers or
   * headers). Pino's interface: pass your app's pino logger (or a child of it).
   * @defaultValue none: the proxy writes nothing
   */
  readonly logger?: ProxyLogger
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

function isLogger(value: unknown): value is ProxyLogger {
  if (typeof value !== "object" || value === null) return false
  const logger = value as Record<string, unknown>
  return (
    typeof logger.info === "function" &&
    typeof logger.warn === "function" &&
    typeof logger.error === "function"
  )
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
    allowedHosts = [],
    apiKey,
    persistFailed,
    logger,
    ...recovery
  } = options
  if (apiKey !== undefined && (typeof apiKey !== "string" || apiKey.length === 0))
    throw new TypeError("tool-rescue proxy: apiKey must be a non-empty string")
  // The hook is checked here like every option; each turn's plan gets it with the protocol and
  // route added (see `observed` in recover-request.ts).
  if (logger !== undefined && !isLogger(logger))
    throw new TypeError("tool-rescue proxy: logger must have info, warn and error methods (a pino logger)")
  const resolved = resolveRecoveryOptions({
    ...recovery,
    ...(persistFailed === undefined
      ? {}
      : { persistFailed: persistFailed as NonNullable<RecoveryOptions["persistFailed"]> }),
  })
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
  const authorization = basicCredentials(upstreamUrlOf)
  upstreamUrlOf.username = ""
  upstreamUrlOf.password = ""
  const context: ProxyContext = {
    upstream: upstreamUrlOf,
    routeTargets: new Map(ROUTES.map(([path]) => [path, upstreamUrl(upstreamUrlOf, path, "").href])),
    resolved,
    maxBodyBytes: positive("maxBodyBytes", maxBodyBytes, 32 * MIB),
    send,
    metrics,
    credentials:
      apiKey === undefined && authorization === undefined ? undefined : { proxyKey: apiKey, authorization },
    persistFailed,
    logger,
    endedTurns: createEndedTurns(),
  }
  const guard = createRequestGuard(allowedHosts, apiKey)
  const routeOf = new Map(ROUTES)

  const app = new Hono<{ Bindings: ProxyEnv }>()
  app.get("/healthz", (c) => c.json({ status: "ok" }))
  app.get("/metrics", async (c) =>
    c.body(await metrics.render(), 200, { "content-type": metrics.contentType }),
  )
  for (const [path, name] of ROUTES)
    app.post(path, (c) => recoverRequest(protocols[name], c.req.raw, context, c.env as ProxyEnv | undefined))
  // Every other path and method: the not-found handler, not a catch-all route, so a recovered
  // route's request matches one handler (Hono then calls it directly, with no middleware chain).
  const routes = new Map(ROUTES)
  app.notFound((c) => {
    const env = c.env as ProxyEnv | undefined
    // Another spelling of a recovered route (`/v1//chat/completions`, `/v1/messages/`): recovered,
    // sent upstream under the route's own path.
    const route = c.req.method === "POST" ? routePath(c.req.path) : undefined
    const name = route === undefined ? undefined : routes.get(route)
    if (name !== undefined) {
      const { search } = new URL(c.req.url)
      const target = `${context.routeTargets.get(route!)!}${search}`
      return recoverRequest(protocols[name], c.req.raw, context, env, target)
    }
    metrics.request("other", "passthrough")
    return passThrough(c.req.raw, context, undefined, env?.rawHeaders ?? c.req.raw.headers, env?.sink)
  })

  return {
    async fetch(request, env) {
      const refusal = guard.refuse(request, env)
      return refusal === undefined ? app.fetch(request, env) : refused(refusal, request, routeOf)
    },
    metrics,
  }
}

/**
 * A refused request's answer: in its route's error shape when it is a recovered route's (the
 * client's SDK reads it), else OpenAI's.
 */
function refused(refusal: Refusal, request: Request, routeOf: ReadonlyMap<string, ProtocolName>): Response {
  const path = new URL(request.url).pathname
  const name = request.method === "POST" ? routeOf.get(path) : undefined
  const { errors } = (name === undefined ? protocols.chat : protocols[name]).wire
  const error = { type: errors.types[refusal.kind], code: refusal.code, message: refusal.message }
  return Response.json(errors.body(error), { status: refusal.status })
}
