import type { RecoveryOptions, ResolvedRecoveryOptions } from "@tool-rescue/recovery"
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
  readonly fetch: typeof globalThis.fetch
  readonly metrics: ProxyMetrics
}

/**
 * Sends one request upstream. `signal` (the client's, or the turn's) aborts it at any time;
 * `upstreamTimeoutMs` bounds the wait for the response headers only — a long generation then
 * streams as long as it takes. Throws {@link UpstreamFailure} `timeout` / `unreachable`, or the
 * abort reason when `signal` aborted.
 */
export async function sendUpstream(
  context: ProxyContext,
  target: URL,
  init: RequestInit & { duplex?: "half" },
  signal: AbortSignal,
): Promise<Response> {
  const timer = new AbortController()
  const timeout = setTimeout(() => timer.abort(), context.upstreamTimeoutMs)
  try {
    return await context.fetch(target, { ...init, signal: AbortSignal.any([signal, timer.signal]) })
  } catch (error) {
    if (signal.aborted) throw error
    throw new UpstreamFailure(timer.signal.aborted ? "timeout" : "unreachable", { cause: error })
  } finally {
    clearTimeout(timeout)
  }
}
