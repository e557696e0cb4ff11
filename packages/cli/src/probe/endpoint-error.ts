import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai"
import { describeConnectionError } from "../connection-error.ts"
import { NotOpenAIError } from "./run-probe.ts"

function serverMessage(error: APIError): string {
  const body = error.error
  const message =
    typeof body === "object" && body !== null && typeof (body as { message?: unknown }).message === "string"
      ? (body as { message: string }).message
      : undefined
  return message === undefined ? "" : ` (server said: ${message})`
}

/**
 * One line that says what went wrong with the endpoint and what to check.
 *
 * @example
 * ```ts
 * describeEndpointError(error, "http://127.0.0.1:8000/v1", "qwen3-coder", 60_000)
 * // "connection refused: nothing is listening at http://127.0.0.1:8000/v1"
 * ```
 */
export function describeEndpointError(
  error: unknown,
  baseURL: string,
  model: string,
  timeoutMs: number,
): string {
  if (error instanceof APIConnectionTimeoutError) {
    return `timed out: no answer from ${baseURL} within ${timeoutMs / 1000} s (raise --timeout for slow models)`
  }
  if (error instanceof APIConnectionError) return describeConnectionError(error, baseURL)
  if (error instanceof APIError) {
    const status = error.status
    if (status === 401)
      return `401 Unauthorized from ${baseURL}: check --api-key or $OPENAI_API_KEY${serverMessage(error)}`
    if (status === 403)
      return `403 Forbidden from ${baseURL}: the key may not use model '${model}'${serverMessage(error)}`
    if (status === 404) {
      return `404 Not Found from ${baseURL}/chat/completions: is the base URL right (it usually ends in /v1), and does model '${model}' exist?${serverMessage(error)}`
    }
    if (status === 400 || status === 422) {
      return `${status} from ${baseURL}: the server rejected the request (does it support tools for '${model}'?)${serverMessage(error)}`
    }
    if (status === undefined) {
      // An error event inside a stream (`data: {"error": …}`).
      return `the endpoint sent an error in the stream: ${error.message}`
    }
    return `HTTP ${status} from ${baseURL}${serverMessage(error)}`
  }
  // A shape we do not recognise, or a body that is not JSON.
  if (error instanceof NotOpenAIError || error instanceof SyntaxError)
    return `${baseURL} does not answer like the OpenAI Chat Completions API: ${error.message}`
  if (isToolCallRecoveryError(error)) return `recovery failed (${error.code}): ${error.message}`
  const message = error instanceof Error ? error.message : String(error)
  return `the request to ${baseURL} failed: ${message}`
}
