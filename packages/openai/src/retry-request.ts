/**
 * The SDK request options of a retry (its body is the protocol's, from `@tool-rescue/wire`). The
 * options drop the caller's idempotency key: the retry is a different request, and a server that
 * honours the key would answer it with the malformed response again.
 */
import { isRecord } from "@tool-rescue/wire"

const IDEMPOTENCY_HEADER = "idempotency-key"

function withoutIdempotencyHeader(headers: unknown): unknown {
  if (headers === undefined || headers === null) return headers
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    const copy = new Headers(headers)
    copy.delete(IDEMPOTENCY_HEADER)
    return copy
  }
  if (Array.isArray(headers)) {
    return headers.filter(
      (row) => !(Array.isArray(row) && String(row[0]).toLowerCase() === IDEMPOTENCY_HEADER),
    )
  }
  if (isRecord(headers)) {
    const copy: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() !== IDEMPOTENCY_HEADER) copy[name] = value
    }
    return copy
  }
  return headers
}

/**
 * The request options of a retry: the caller's options (headers, timeout, `maxRetries`,
 * `__metadata`, …) without the idempotency key, with `signal` replaced by the turn's signal
 * (which already follows the caller's signal).
 */
export function retryRequestOptions(options: unknown, signal: AbortSignal): Record<string, unknown> {
  const base: Record<string, unknown> = isRecord(options) ? { ...options } : {}
  delete base.idempotencyKey
  if ("headers" in base) base.headers = withoutIdempotencyHeader(base.headers)
  base.signal = signal
  return base
}

/** The caller's `signal` from request options, when there is one. */
export function signalOf(options: unknown): AbortSignal | undefined {
  if (!isRecord(options)) return undefined
  const signal = options.signal
  return typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? signal : undefined
}

/** Whether `value` is a promise-like (the SDK accepts promised request options internally). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  )
}
