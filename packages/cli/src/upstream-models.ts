/**
 * `GET <base URL>/models`, the one reader of it in the CLI: `serve` says at start what its
 * upstream answered (a warning at most: the server may come up later, or not list models without
 * a key the proxy does not have — clients bring theirs), and `probe`'s doctor reads who owns the
 * model (`modelOwners`). The body is read by `@tool-rescue/wire`'s `readModelList`.
 */
import { basicCredentials } from "@tool-rescue/proxy"
import { type ListedModel, readModelList } from "@tool-rescue/wire"
import { describeConnectionError } from "./connection-error.ts"

/**
 * The answer to `GET <base URL>/models`.
 *
 * @example
 * ```ts
 * const ids = (answer: UpstreamModels) => (answer.kind === "models" ? answer.models.map((m) => m.id) : [])
 * ```
 */
export type UpstreamModels =
  | { readonly kind: "models"; readonly models: readonly ListedModel[] }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "not-a-list" }
  | { readonly kind: "unreachable"; readonly reason: string }

/** Options of {@link upstreamModels}. */
export interface UpstreamModelsOptions {
  readonly timeoutMs: number
  /** Sent as `Authorization: Bearer …` (credentials in the URL go as Basic auth instead). */
  readonly apiKey?: string
}

/**
 * Asks `baseURL` for its models, within `timeoutMs`. Credentials in the URL go as Basic auth, as
 * the proxy sends them (fetch refuses a URL that carries them). Never rejects: a failure is an
 * answer, with why.
 *
 * @example
 * ```ts
 * const answer = await upstreamModels("http://127.0.0.1:8000/v1", { timeoutMs: 5_000 })
 * if (answer.kind === "unreachable") console.warn(answer.reason)
 * ```
 */
export async function upstreamModels(
  baseURL: string,
  { timeoutMs, apiKey }: UpstreamModelsOptions,
): Promise<UpstreamModels> {
  const url = new URL(baseURL)
  const headers: Record<string, string> = { accept: "application/json" }
  let basic: string | undefined
  try {
    basic = basicCredentials(url)
  } catch (error) {
    return { kind: "unreachable", reason: error instanceof Error ? error.message : String(error) }
  }
  if (basic !== undefined) headers.authorization = basic
  else if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`
  url.username = ""
  url.password = ""
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/models`
  let response: Response
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    return { kind: "unreachable", reason: describeConnectionError(error, url.href, timeoutMs) }
  }
  if (!response.ok) {
    await response.body?.cancel()
    return { kind: "status", status: response.status }
  }
  // Read, then parsed: a body that timed out or broke off is no answer, one that is not JSON no list.
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    return { kind: "unreachable", reason: describeConnectionError(error, url.href, timeoutMs) }
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { kind: "not-a-list" }
  }
  const models = readModelList(body)
  return models === undefined ? { kind: "not-a-list" } : { kind: "models", models }
}
