import type { ProtocolError } from "./protocol.ts"
import { sseFrame } from "./read-sse.ts"
import type { ResponseHeaders } from "./response-headers.ts"

/**
 * Why an upstream attempt failed, for the proxy's own control flow (never thrown to a user):
 * - `status`: the upstream answered a retry with an error status (or not with the expected
 *   content type); its response is passed on unchanged;
 * - `event`: the upstream stream carried an error event; it is passed on unchanged;
 * - `timeout`: no response headers within `upstreamTimeoutMs`, or no body bytes for
 *   `upstreamIdleTimeoutMs` (the upstream request is aborted);
 * - `unreachable`: the connection failed before the response headers;
 * - `cut`: the response body failed after the headers (the connection was cut);
 * - `malformed`: the upstream answered, but with what the proxy cannot read (an event whose data
 *   is not JSON, response headers over the size limit): {@link UpstreamFailure.reason} says what.
 */
export type UpstreamFailureKind = "status" | "event" | "timeout" | "unreachable" | "cut" | "malformed"

/** An upstream response, read whole. */
export interface BufferedResponse {
  readonly status: number
  readonly headers: ResponseHeaders
  readonly text: string
}

const brand: unique symbol = Symbol.for("@tool-rescue/proxy.UpstreamFailure")

/** An attempt failed upstream: a provider error, final, never retried. */
export class UpstreamFailure extends Error {
  override readonly name: "UpstreamFailure" = "UpstreamFailure"
  readonly kind: UpstreamFailureKind
  /** `status`: the upstream's response. */
  readonly response: BufferedResponse | undefined
  /** `event`: the error event's frame as received. */
  readonly frame: string | undefined
  /** `malformed`: what the upstream sent, as the end of "The upstream sent …" ("an event that is not JSON"). */
  readonly reason: string | undefined

  constructor(
    kind: UpstreamFailureKind,
    detail: { response?: BufferedResponse; frame?: string; reason?: string; cause?: unknown },
  ) {
    super(
      detail.reason === undefined
        ? `tool-rescue proxy: upstream ${kind}`
        : `tool-rescue proxy: the upstream sent ${detail.reason}`,
      detail.cause === undefined ? undefined : { cause: detail.cause },
    )
    // Not a class field: a computed symbol member cannot be declared under isolatedDeclarations.
    Object.defineProperty(this, brand, { value: true })
    this.kind = kind
    this.response = detail.response
    this.frame = detail.frame
    this.reason = detail.reason
  }

  /** Recognises an {@link UpstreamFailure} by brand. */
  static isInstance(value: unknown): value is UpstreamFailure {
    return typeof value === "object" && value !== null && (value as { [brand]?: unknown })[brand] === true
  }

  /** A `status` failure of `response`, whose body was read as `text`. */
  static fromResponse(
    response: { readonly status: number; readonly headers: ResponseHeaders },
    text: string,
  ): UpstreamFailure {
    return new UpstreamFailure("status", {
      response: { status: response.status, headers: response.headers, text },
    })
  }

  /** The failure as an SSE frame of `eventName` (undefined for Chat), or undefined when it has no body to pass on. */
  upstreamFrame(eventName: string | undefined): string | undefined {
    if (this.frame !== undefined) return this.frame
    const text = this.response?.text
    if (text === undefined) return undefined
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === "object" && parsed !== null && "error" in parsed)
        return sseFrame(JSON.stringify(parsed), eventName)
    } catch {
      // Not JSON: the caller frames it as the proxy's own error.
    }
    return undefined
  }
}

/** The gateway failures the proxy answers itself: their status and message. */
const GATEWAY: Readonly<Partial<Record<UpstreamFailureKind, { status: number; message: string }>>> = {
  timeout: { status: 504, message: "The upstream did not answer in time." },
  unreachable: { status: 502, message: "The upstream could not be reached." },
  cut: { status: 502, message: "The upstream's response was cut short." },
  malformed: { status: 502, message: "The upstream's response could not be read." },
}

/**
 * The proxy's own answer to a `timeout` (504), `unreachable`, `cut` or `malformed` (502) failure, with the
 * protocol's error `type` for an upstream failure (`upstream_error`, Anthropic's `api_error`), or
 * undefined for any other failure. The code is `upstream-<kind>`.
 */
export function gatewayError(
  error: unknown,
  type: string,
): { readonly status: number; readonly error: ProtocolError } | undefined {
  if (!UpstreamFailure.isInstance(error)) return undefined
  const gateway = GATEWAY[error.kind]
  if (gateway === undefined) return undefined
  return {
    status: gateway.status,
    error: {
      type,
      code: `upstream-${error.kind}`,
      message: error.reason === undefined ? gateway.message : `The upstream sent ${error.reason}.`,
    },
  }
}

/** undici's code for response headers over its limit (Node's `--max-http-header-size`, 16 KiB by default). */
const HEADERS_OVERFLOW = "UND_ERR_HEADERS_OVERFLOW"

/**
 * The failure of a request that got no response: `malformed` when the upstream did answer, with
 * headers over the limit (`error` or its `cause`, as fetch wraps it, is undici's overflow error),
 * else `fallback` (`timeout` or `unreachable`).
 */
export function failureBeforeHeaders(
  error: unknown,
  fallback: "timeout" | "unreachable",
): UpstreamFailure & { readonly kind: "timeout" | "unreachable" | "malformed" } {
  const cause = typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined
  const failure =
    codeOf(error) === HEADERS_OVERFLOW || codeOf(cause) === HEADERS_OVERFLOW
      ? new UpstreamFailure("malformed", {
          reason: "response headers larger than the proxy accepts",
          cause: error,
        })
      : new UpstreamFailure(fallback, { cause: error })
  return failure as UpstreamFailure & { readonly kind: "timeout" | "unreachable" | "malformed" }
}

/** The `code` of an error (undici's `UND_ERR_…`), if it has one. */
export function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
}
