import type { RecoveryOptions, ResolvedRecoveryOptions } from "@tool-rescue/recovery"
import { boundUpstreamBody } from "./bound-upstream-body.ts"
import type { ProxyMetrics } from "./proxy-metrics.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/** What every handler of one proxy needs, resolved once by `createProxy`. */
export interface ProxyContext {
  readonly upstream: URL
  readonly recovery: RecoveryOptions
  /** `recovery`, resolved once (for `planTurn`). */
  readonly resolved: ResolvedRecoveryOptions
  readonly placement: "system" | "user"
  readonly maxBodyBytes: number
  readonly upstreamTimeoutMs: number
  readonly upstreamIdleTimeoutMs: number
  readonly fetch: typeof globalThis.fetch
  readonly metrics: ProxyMetrics
}

/**
 * Sends one request upstream. `signal` (the client's, or the turn's) aborts it at any time;
 * `upstreamTimeoutMs` bounds the wait for the response headers, `upstreamIdleTimeoutMs` each
 * wait for the body's next bytes — a long generation streams as long as it takes while bytes
 * keep coming. Throws {@link UpstreamFailure} `timeout` / `unreachable`, or the abort reason when
 * `signal` aborted; the body's reads fail with `timeout` / `cut` (see `boundUpstreamBody`).
 */
export async function sendUpstream(
  context: ProxyContext,
  target: URL,
  init: RequestInit & { duplex?: "half" },
  signal: AbortSignal,
): Promise<Response> {
  const upstream = new AbortController()
  const timeout = setTimeout(() => upstream.abort(), context.upstreamTimeoutMs)
  let response: Response
  try {
    response = await context.fetch(target, { ...init, signal: AbortSignal.any([signal, upstream.signal]) })
  } catch (error) {
    if (signal.aborted) throw error
    const kind = upstream.signal.aborted ? "timeout" : "unreachable"
    context.metrics.upstreamFailure(kind)
    throw new UpstreamFailure(kind, { cause: error })
  } finally {
    clearTimeout(timeout)
  }
  return boundUpstreamBody(response, {
    idleMs: context.upstreamIdleTimeoutMs,
    abort: (reason) => upstream.abort(reason),
    signal,
    failed: (kind) => context.metrics.upstreamFailure(kind),
  })
}
