/**
 * What `serve` says about its upstream at start: `GET <upstream>/models` answered, and the
 * models it lists — or why not. A warning at most: the server may come up later, or not list
 * models without a key the proxy does not have (clients bring theirs).
 */

/** The answer to `GET <upstream>/models`. */
export type UpstreamModels =
  | { readonly kind: "models"; readonly models: readonly string[] }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "not-a-list" }
  | { readonly kind: "unreachable"; readonly reason: string }

/**
 * Asks `upstream` for its models, within `timeoutMs`. Credentials in the URL go as Basic auth
 * (fetch refuses a URL that carries them).
 */
export async function upstreamModels(upstream: string, timeoutMs: number): Promise<UpstreamModels> {
  const url = new URL(upstream)
  const headers: Record<string, string> = { accept: "application/json" }
  if (url.username !== "" || url.password !== "") {
    const user = decodeURIComponent(url.username)
    const password = decodeURIComponent(url.password)
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
    url.username = ""
    url.password = ""
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/models`
  let response: Response
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    return { kind: "unreachable", reason: reasonOf(error, timeoutMs) }
  }
  if (!response.ok) {
    await response.body?.cancel()
    return { kind: "status", status: response.status }
  }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    return { kind: "not-a-list" }
  }
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined
  if (!Array.isArray(data)) return { kind: "not-a-list" }
  const models = data.flatMap((model: unknown) => {
    const id = typeof model === "object" && model !== null ? (model as { id?: unknown }).id : undefined
    return typeof id === "string" ? [id] : []
  })
  return { kind: "models", models }
}

/** Why a request failed, in a few words (undici's `fetch failed` hides it in `cause`). */
function reasonOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${timeoutMs / 1000} s`
  const cause = error instanceof Error ? error.cause : undefined
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  if (typeof code === "string") return code === "ECONNREFUSED" ? "connection refused" : code
  if (cause instanceof Error) return cause.message
  return error instanceof Error ? error.message : String(error)
}
