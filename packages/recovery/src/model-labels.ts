/**
 * A metric label for a model name, bounded: the first `limit` distinct names are their own label,
 * every later one is `other`, and a request that named none is `unknown`. Model names come from
 * requests, so a client that invents a name per request would otherwise grow a metric's series
 * without end (each series costs memory in the process and in every scraper).
 *
 * @example
 * ```ts
 * import { createModelLabels } from "@tool-rescue/recovery/adapter"
 *
 * const label = createModelLabels(1)
 * label("qwen3-coder") // "qwen3-coder"
 * label("llama-4") // "other"
 * label(undefined) // "unknown"
 * ```
 */
export function createModelLabels(limit: number = MODEL_LABEL_LIMIT): (model: string | undefined) => string {
  const seen = new Set<string>()
  return (model) => {
    if (model === undefined || model === "") return "unknown"
    // A name longer than any real model's is not worth a series of its own.
    if (model.length > MAX_MODEL_CHARS) return "other"
    if (seen.has(model)) return model
    if (seen.size >= limit) return "other"
    seen.add(model)
    return model
  }
}

/** Distinct models a metric labels by name (a server hosts a few; a gateway some dozens). */
export const MODEL_LABEL_LIMIT = 100

const MAX_MODEL_CHARS = 200
