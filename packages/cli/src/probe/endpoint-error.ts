import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai"
import { NotOpenAIError } from "./run-probe.ts"

/** The network error code somewhere in an error's `cause` chain (`ECONNREFUSED`, …). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code
    // undici wraps several attempts (IPv4, IPv6) in an AggregateError.
    const errors = (current as { errors?: unknown }).errors
    if (Array.isArray(errors) && errors.length > 0) current = errors[0]
    else current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * One line for a request that got no HTTP answer from `url` (a `fetch` that rejected, or the
 * `openai` client's connection error): what happened, and what to check — never a bare
 * "fetch failed".
 *
 * @example
 * ```ts
 * describeConnectionError(error, "http://127.0.0.1:8787/metrics")
 * // "connection refused: nothing is listening at http://127.0.0.1:8787/metrics (is the server running, on that port?)"
 * ```
 */
export function describeConnectionError(error: unknown, url: string): string {
  const code = causeCode(error)
  if (code === "ECONNREFUSED")
    return `connection refused: nothing is listening at ${url} (is the server running, on that port?)`
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `cannot resolve the host of ${url} (check its spelling)`
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET")
    return `the connection to ${url} was closed before a complete answer`
  if (code === "ETIMEDOUT") return `timed out connecting to ${url} (a firewall, or the wrong host?)`
  const detail = innermostMessage(error)
  // fetch refuses the ports on the Fetch standard's "bad port" list (6000, 6665–6669, …) itself.
  if (detail === "bad port")
    return `fetch refuses to connect to the port of ${url} (a port on the Fetch standard's blocked list): serve on another port`
  return `cannot connect to ${url}: ${detail}${code === undefined ? "" : ` (${code})`}`
}

/** The message of the deepest error in a `cause` chain ("fetch failed" says less than its cause). */
function innermostMessage(error: unknown): string {
  let current: unknown = error
  let message = error instanceof Error ? error.message : String(error)
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    message = current.message
    current = current.cause
  }
  return message
}

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
