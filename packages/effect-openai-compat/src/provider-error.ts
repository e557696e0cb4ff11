/**
 * What can go wrong talking to an OpenAI-compatible server, as Effect's `AiError` reasons, so
 * that `error.isRetryable` tells the caller the truth:
 *
 * | what happened                                   | reason                               | retryable |
 * | ----------------------------------------------- | ------------------------------------ | --------- |
 * | 429                                             | `RateLimitError` (`retry-after` kept) | yes       |
 * | 5xx                                             | `InternalProviderError`              | yes       |
 * | 400 / 401 / 403 / other 4xx                     | `InvalidRequestError` / `AuthenticationError` / `UnknownError` | no |
 * | refused connection, reset, body cut mid-read    | `NetworkError` (`TransportError`)    | yes       |
 * | a stream that ends without `[DONE]`             | `NetworkError` (`TransportError`)    | yes       |
 * | `data: {"error": …}` in a stream                | as its `code` / `type`: 5xx by default | as above |
 * | JSON that is not JSON, a body that is no completion | `InvalidResponseError`           | no        |
 *
 * The status mapping is Effect's own (`AiError.reasonFromHttpStatus`); this file only reads
 * OpenAI's error body (`{"error": {"message", "type", "code"}}`) for the description.
 */

import { isRecord } from "@tool-rescue/wire"
import { Duration } from "effect"
import { AiError } from "effect/ai"
import type { HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"

/** `module` of every `AiError` this package produces. */
export const MODULE = "OpenAiCompatibleModel"

/** The `AiError` for `reason`, raised by `method` (`"generateText"` or `"streamText"`). */
export const aiError = (method: string, reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module: MODULE, method, reason })

/** OpenAI's `{"error": {…}}` (or a bare string error) read for a description. */
function errorFields(body: unknown): { message?: string; type?: string; code?: string | number } {
  const error = isRecord(body) ? body.error : undefined
  if (typeof error === "string") return { message: error }
  if (!isRecord(error)) return {}
  const out: { message?: string; type?: string; code?: string | number } = {}
  if (typeof error.message === "string") out.message = error.message
  if (typeof error.type === "string") out.type = error.type
  if (typeof error.code === "string" || typeof error.code === "number") out.code = error.code
  return out
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** `retry-after` in seconds (the HTTP-date form is left to the caller's own schedule). */
function retryAfter(headers: Readonly<Record<string, string>>): Duration.Duration | undefined {
  const raw = headers["retry-after"]
  const seconds = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(seconds) && seconds >= 0 ? Duration.seconds(seconds) : undefined
}

/** The reason for an HTTP error status, with the server's message when it sent one. */
export function statusReason(
  request: HttpClientRequest.HttpClientRequest,
  response: HttpClientResponse.HttpClientResponse,
  body: string,
): AiError.AiErrorReason {
  const headers = response.headers as Readonly<Record<string, string>>
  const fields = errorFields(parseJson(body))
  const description = AiError.buildErrorDescription({
    status: response.status,
    message: fields.message,
    method: request.method,
    url: request.url,
    errorCode: fields.code,
    errorType: fields.type,
    requestId: headers["x-request-id"],
    body,
  })
  const http = { response: { status: response.status, headers: { ...headers } }, body }
  if (response.status === 429) {
    const after = retryAfter(headers)
    return new AiError.RateLimitError(after === undefined ? { http } : { http, retryAfter: after })
  }
  return AiError.reasonFromHttpStatus({ status: response.status, http, description })
}

/**
 * The reason for an `{"error": …}` event inside a stream (sent after a 200): by its numeric
 * `code` when that is an HTTP status, else a server error (retryable), as OpenAI sends them.
 */
export function streamedErrorReason(error: unknown): AiError.AiErrorReason {
  const fields = errorFields({ error })
  const status =
    typeof fields.code === "number" && fields.code >= 400 && fields.code < 600 ? fields.code : 500
  const description = `${fields.message ?? "error event in the stream"}${fields.type ? ` [type: ${fields.type}]` : ""}`
  return AiError.reasonFromHttpStatus({ status, description })
}

/**
 * The reason for a failure of the HTTP client: the request never got an answer (refused,
 * reset, invalid URL), or the body broke off while it was read — both network failures.
 */
export function clientReason(
  error: HttpClientError.HttpClientError,
  request: HttpClientRequest.HttpClientRequest,
): AiError.AiErrorReason {
  const reason = error.reason
  switch (reason._tag) {
    case "TransportError":
    case "EncodeError":
    case "InvalidUrlError":
      return AiError.NetworkError.fromRequestError(reason)
    case "DecodeError":
    case "EmptyBodyError":
    case "StatusCodeError":
      return new AiError.NetworkError({
        reason: "TransportError",
        method: request.method,
        url: request.url,
        description: reason.description ?? `the response body could not be read (${reason._tag})`,
        cause: error,
      })
    default:
      return reason satisfies never
  }
}

/** A stream the server closed before `data: [DONE]`: cut short on the way, worth a retry. */
export const cutShortReason = (request: HttpClientRequest.HttpClientRequest): AiError.AiErrorReason =>
  new AiError.NetworkError({
    reason: "TransportError",
    method: request.method,
    url: request.url,
    description: "the stream ended before data: [DONE]",
  })

/** A response that is not what the Chat Completions API returns: retrying will not change it. */
export const invalidResponseReason = (description: string): AiError.AiErrorReason =>
  new AiError.InvalidResponseError({ description })
