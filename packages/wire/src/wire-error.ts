import type { ToolCallRecoveryErrorCode } from "@tool-rescue/recovery"

/**
 * An error a front end (the proxy) answers with itself, before it takes each protocol's shape.
 *
 * @example
 * ```ts
 * import type { WireError } from "@tool-rescue/wire"
 *
 * const error: WireError = { type: "tool_call_recovery_error", code: "repeated-markup", message: "…" }
 * ```
 */
export interface WireError {
  /** The error class (`invalid_request_error`, `tool_call_recovery_error`, …): see {@link ErrorShape.types}. */
  readonly type: string
  /** `repeated-markup`, `persist-failed`, `invalid_json`, `request_too_large`, … */
  readonly code: string
  readonly message: string
}

/**
 * The kinds of error a front end answers itself, each of which a protocol names with its own
 * `type`: a bad request, a body over the limit, a turn recovery gave up on, the front end's own
 * failure, an upstream that failed (timed out, unreachable, cut, an error status on a retry), a
 * client without the front end's key (401), a request the front end refuses to serve (403).
 */
export type ErrorKind =
  | "invalid-request"
  | "too-large"
  | "tool-call-recovery"
  | "server"
  | "upstream"
  | "authentication"
  | "permission"

/** One SSE event: its `event:` name (none for Chat Completions) and its JSON data. */
export interface WireEvent {
  readonly name: string | undefined
  readonly data: unknown
}

/**
 * A protocol's error shape: the `type` it gives each kind of error, the JSON body of an error
 * response, and the stream event that ends a stream with an error.
 *
 * @example
 * ```ts
 * import { chatCompletions } from "@tool-rescue/wire"
 *
 * const { errors } = chatCompletions
 * errors.body({ type: errors.types["too-large"], code: "request_too_large", message: "Too large." })
 * // { error: { type: "invalid_request_error", code: "request_too_large", message: "Too large.", param: null } }
 * ```
 */
export interface ErrorShape {
  /** The error `type` of each kind. */
  readonly types: Readonly<Record<ErrorKind, string>>
  /** The JSON body of an error response. */
  body(error: WireError): unknown
  /** The stream event that ends a stream with `error`. */
  event(error: WireError): WireEvent
  /**
   * The `event:` name an upstream's error body is passed on under inside a stream (`undefined`:
   * an unnamed `data:` event, as Chat Completions writes them).
   */
  readonly eventName: string | undefined
}

/**
 * The HTTP status of a turn recovery gave up on, by its code: 422 for a repeated leak or a call
 * cut off (clients do not retry a 422), 500 when the failed response could not be kept, 499 when
 * the client went away.
 *
 * @example
 * ```ts
 * import { recoveryErrorStatus } from "@tool-rescue/wire"
 *
 * recoveryErrorStatus["repeated-markup"] // 422
 * ```
 */
export const recoveryErrorStatus: Readonly<Record<ToolCallRecoveryErrorCode, number>> = {
  "repeated-markup": 422,
  "truncated-call": 422,
  "persist-failed": 500,
  aborted: 499,
}

/** OpenAI's error body (Chat Completions and Responses). */
export function openAiErrorBody(error: WireError): { error: Record<string, unknown> } {
  return { error: { type: error.type, code: error.code, message: error.message, param: null } }
}

/** OpenAI's error types (Chat Completions and Responses). */
export const openAiErrorTypes: Readonly<Record<ErrorKind, string>> = {
  "invalid-request": "invalid_request_error",
  "too-large": "invalid_request_error",
  "tool-call-recovery": "tool_call_recovery_error",
  server: "server_error",
  upstream: "upstream_error",
  // OpenAI answers a wrong key with `invalid_request_error` (code `invalid_api_key`).
  authentication: "invalid_request_error",
  permission: "invalid_request_error",
}
