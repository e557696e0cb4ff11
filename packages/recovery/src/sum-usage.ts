/**
 * The usage of a turn whose response took more than one model call: every attempt consumed
 * tokens (and is billed), so the turn reports their sum. Works on any framework's usage record:
 * numbers are added, nested records are summed key by key, a count only one side reported is
 * kept as it is (`undefined`/`null` mean "not reported"), and any other value (a string, the
 * keys in `keepLast`, such as the AI SDK's provider-`raw` object) is taken from `b`, the later
 * attempt, when it has one. An `a` of `undefined` (no attempt counted yet) gives `b`.
 *
 * @example
 * ```ts
 * import { sumUsage } from "@tool-rescue/recovery/adapter"
 *
 * sumUsage(
 *   { prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 2 } },
 *   { prompt_tokens: 12, completion_tokens: 7, completion_tokens_details: { reasoning_tokens: 1 } },
 * )
 * // { prompt_tokens: 22, completion_tokens: 12, completion_tokens_details: { reasoning_tokens: 3 } }
 * ```
 */
export function sumUsage<Usage>(a: Usage | undefined, b: Usage, keepLast: readonly string[] = []): Usage {
  return sum(a, b, keepLast) as Usage
}

function sum(a: unknown, b: unknown, keepLast: readonly string[]): unknown {
  if (a === undefined || a === null) return b
  if (b === undefined || b === null) return a
  if (typeof a === "number" && typeof b === "number") return a + b
  if (!isRecord(a) || !isRecord(b)) return b
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(a)) {
    out[key] = keepLast.includes(key) ? (b[key] ?? a[key]) : sum(a[key], b[key], keepLast)
  }
  for (const key of Object.keys(b)) {
    if (!(key in out)) out[key] = b[key]
  }
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
