import { upstreamModels } from "../upstream-models.ts"

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
  const answer = await upstreamModels(baseURL, { timeoutMs, apiKey })
  if (answer.kind !== "models") return []
  const owners = (list: typeof answer.models) => list.flatMap((entry) => entry.ownedBy ?? [])
  const own = owners(answer.models.filter((entry) => entry.id === model))
  return [...new Set(own.length > 0 ? own : owners(answer.models))]
}
