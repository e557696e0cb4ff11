import { isRecord } from "@tool-rescue/wire"

/**
 * The `owned_by` values `GET {baseURL}/models` gives for `model` (or for every listed model when
 * `model` is not listed), for the doctor to recognise the server. Any failure — no such route, an
 * error status, a body that is not a model list, a timeout — gives an empty list: the lookup is a
 * hint, never a reason to stop.
 *
 * @example
 * ```ts
 * await modelOwners("http://127.0.0.1:8000/v1", "qwen3-coder", "no-key", 5_000) // ["vllm"]
 * ```
 */
export async function modelOwners(
  baseURL: string,
  model: string,
  apiKey: string,
  timeoutMs: number,
): Promise<string[]> {
  try {
    const response = await fetch(`${baseURL}/models`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) return []
    const body: unknown = await response.json()
    const list = isRecord(body) && Array.isArray(body.data) ? body.data.filter(isRecord) : []
    const owner = (entry: Record<string, unknown>) =>
      typeof entry.owned_by === "string" ? [entry.owned_by] : []
    const own = list.filter((entry) => entry.id === model).flatMap(owner)
    return [...new Set(own.length > 0 ? own : list.flatMap(owner))]
  } catch {
    return []
  }
}
