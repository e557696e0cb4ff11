/**
 * Requests with tools per model, from the proxy's Prometheus `/metrics` text, read by the proxy's
 * own reader (`parseMetricSamples`, beside its writer). Kept to what the proxy writes and tolerant
 * of the rest: a series that is absent (an older proxy without the `model` label) leaves the map
 * empty, and lines it does not understand are skipped.
 */

import { parseMetricSamples } from "@tool-rescue/proxy"
import { describeConnectionError } from "../connection-error.ts"

/**
 * Whether a sample counts requests that offered tools: the proxy's
 * `tool_rescue_proxy_requests_total` with `mode="recovered"` (recovery applies only to requests
 * with tools), or a counter named for requests with tools (`…tool_requests_total`,
 * `…requests_with_tools_total`), or any requests counter labelled `tools="true"`.
 */
function countsToolRequests(name: string, labels: ReadonlyMap<string, string>): boolean {
  if (name.endsWith("tool_requests_total") || name.endsWith("requests_with_tools_total")) return true
  if (!name.endsWith("requests_total")) return false
  return labels.get("mode") === "recovered" || labels.get("tools") === "true"
}

/**
 * Sums requests with tools per `model` label in a `/metrics` text.
 *
 * @example
 * ```ts
 * parseRequestsWithTools('tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="qwen3"} 12\n').get("qwen3") // 12
 * ```
 */
export function parseRequestsWithTools(text: string): Map<string, number> {
  const perModel = new Map<string, number>()
  for (const { name, labels, value } of parseMetricSamples(text)) {
    const model = labels.get("model")
    if (model === undefined || !Number.isFinite(value) || !countsToolRequests(name, labels)) continue
    perModel.set(model, (perModel.get(model) ?? 0) + value)
  }
  return perModel
}

/**
 * Reads `url` (the proxy's `/metrics`) and returns requests with tools per model, or the reason it
 * could not (the report goes on without rates).
 *
 * @example
 * ```ts
 * const { requestsWithTools, error } = await fetchRequestsWithTools("http://127.0.0.1:8787/metrics", 10_000)
 * ```
 */
export async function fetchRequestsWithTools(
  url: string,
  timeoutMs: number,
): Promise<{ requestsWithTools: Map<string, number>; error: string | null }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    if (!response.ok) return { requestsWithTools: new Map(), error: `HTTP ${response.status} from ${url}` }
    const requestsWithTools = parseRequestsWithTools(await response.text())
    return {
      requestsWithTools,
      error: requestsWithTools.size === 0 ? "no requests-with-tools series with a model label" : null,
    }
  } catch (error) {
    return { requestsWithTools: new Map(), error: describeConnectionError(error, url, timeoutMs) }
  }
}
