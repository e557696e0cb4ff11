import type { ResolvedRecoveryOptions } from "@tool-rescue/recovery/adapter"
import type { EndedTurns } from "./ended-turns.ts"
import type { UpstreamCredentials } from "./forward-headers.ts"
import type { ProxyFailedResponse } from "./proxy-failed-response.ts"
import type { ProxyLogger } from "./proxy-logger.ts"
import type { ProxyMetrics } from "./proxy-metrics.ts"
import type { ByteReader, ByteSource } from "./read-sse.ts"
import type { ResponseHeaders } from "./response-headers.ts"
import type { UpstreamFailureKind } from "./upstream-failure.ts"

/**
 * An upstream's response as the proxy reads it: its status and headers, and its body as
 * bounded reads (`null` for none). Reads of `body` fail with {@link UpstreamFailure} `timeout`
 * (no bytes for `upstreamIdleTimeoutMs`) or `cut` (the connection failed), or with the abort
 * reason once the request's signal aborted.
 */
export interface UpstreamResponse {
  readonly status: number
  readonly statusText: string
  /** Web `Headers` from a `fetch`, a `FieldList` from undici (the Node entry). */
  readonly headers: ResponseHeaders
  readonly body: ByteSource | null
}

/** A request the proxy sends upstream. */
export interface UpstreamRequest {
  readonly method: string
  /** Lower-case names (see `upstreamRequestHeaders`). */
  readonly headers: Readonly<Record<string, string>>
  /** Bytes the proxy read, or the client's body streamed (pass-through). */
  readonly body: Uint8Array | ReadableStream<Uint8Array> | null
}

/** The bounds every upstream request has, and where their failures are counted. */
export interface UpstreamLimits {
  /** Milliseconds to wait for the response headers. */
  readonly timeoutMs: number
  /** Milliseconds a read of the body may wait for the next bytes. */
  readonly idleMs: number
  /** Counts a failure (`upstream_failures_total{kind}`). */
  failed(kind: Extract<UpstreamFailureKind, "timeout" | "unreachable" | "cut" | "malformed">): void
}

/**
 * Sends one request upstream. `signal` (the client's, or the turn's) aborts it at any time; the
 * limits bound the wait for the headers and each wait for the body's next bytes — a long
 * generation streams as long as it takes while bytes keep coming. Throws {@link UpstreamFailure}
 * `timeout` / `unreachable`, or the abort reason when `signal` aborted.
 */
export type SendUpstream = (
  target: string,
  request: UpstreamRequest,
  signal: AbortSignal,
) => Promise<UpstreamResponse>

/** The status line and headers of a response the proxy writes. */
export interface ResponseHead {
  readonly status: number
  readonly statusText?: string
  /** In the upstream's kind (see `keptResponseHeaders`): a web `Response` takes `webHeaders(headers)`. */
  readonly headers: ResponseHeaders
}

/**
 * Where a recovered stream goes: by default the body of a web `Response` (every runtime); the
 * Node entry writes it to the connection itself and answers with a response that says so.
 * `ending`: the protocol's error event that ends the stream if the host must cut it (a shutdown
 * whose grace period is over), for a stream whose protocol is known.
 */
export type StreamSink = (head: ResponseHead, body: ByteReader, ending?: Uint8Array) => Response

/**
 * Calls `listener` once when the client goes away before its response is done (at once if it
 * already went).
 */
export type OnClientGone = (listener: (reason: unknown) => void) => void

/**
 * What a host passes with each request — the Node entry: where a recovered stream is written,
 * the client's headers as Node read them (`rawHeaders`; see `upstreamRequestHeaders`), and the
 * client's leaving as its connection reports it (`onClientGone`; else the request's `signal`,
 * which on `@hono/node-server` is an abort controller and a listener more per request).
 */
export interface ProxyEnv {
  readonly sink?: StreamSink
  readonly rawHeaders?: readonly string[]
  readonly onClientGone?: OnClientGone
}

/** What every handler of one proxy needs, resolved once by `createProxy`. */
export interface ProxyContext {
  readonly upstream: URL
  /** The upstream URL of each recovered route's path (see `upstreamTarget`), made once. */
  readonly routeTargets: ReadonlyMap<string, string>
  /** The recovery options, resolved once (for `planTurn`, whose plan carries them to each turn). */
  readonly resolved: ResolvedRecoveryOptions
  readonly maxBodyBytes: number
  readonly send: SendUpstream
  readonly metrics: ProxyMetrics
  /** The proxy's key (not forwarded) and the upstream URL's credentials, when there are any. */
  readonly credentials: UpstreamCredentials | undefined
  /** The user's `persistFailed`, called with the protocol and route (`resolved` holds none). */
  readonly persistFailed: ((failed: ProxyFailedResponse) => void | Promise<void>) | undefined
  /** Where turn lines go (none: silent). */
  readonly logger: ProxyLogger | undefined
  /** The turns this proxy ended lately: a client's resend of one does not start it afresh. */
  readonly endedTurns: EndedTurns
}

/** A 2xx status (`Response.ok`). */
export function isOk(response: UpstreamResponse): boolean {
  return response.status >= 200 && response.status < 300
}
