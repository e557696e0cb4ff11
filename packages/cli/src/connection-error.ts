/**
 * Why a request got no HTTP answer, in words a user can act on: every command that talks to a
 * server (probe, report's `--metrics`, serve's start-up models check) says it the same way.
 */

/**
 * A network error code: the system's (`ECONNREFUSED`), the resolver's (`EAI_AGAIN`) or undici's
 * (`UND_ERR_SOCKET`: the other side closed the connection). Not Node's `ERR_…` codes of API misuse.
 */
const NETWORK_CODE = /^(?:E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+)$/

/** The network error code somewhere in an error's `cause` chain (`ECONNREFUSED`, …). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && NETWORK_CODE.test(code)) return code
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
 * "fetch failed". With `timeoutMs`, the `AbortSignal.timeout(timeoutMs)` the fetch was given
 * firing reads as no answer within that time.
 *
 * @example
 * ```ts
 * describeConnectionError(error, "http://127.0.0.1:8787/metrics")
 * // "connection refused: nothing is listening at http://127.0.0.1:8787/metrics (is the server running, on that port?)"
 * ```
 */
export function describeConnectionError(error: unknown, url: string, timeoutMs?: number): string {
  if (timeoutMs !== undefined && error instanceof Error && error.name === "TimeoutError")
    return `no answer from ${url} within ${timeoutMs / 1000} s`
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
