/**
 * OpenAI's model list, the answer to `GET /v1/models` (`{ object: "list", data: [{ id, owned_by }] }`),
 * which vLLM, SGLang, llama.cpp, Ollama and LM Studio serve too: read from `unknown`, as any
 * server may answer that route.
 */
import { isRecord } from "./json.ts"

/**
 * One model of a model list.
 *
 * @example
 * ```ts
 * import type { ListedModel } from "@tool-rescue/wire"
 *
 * const label = (model: ListedModel) => `${model.id} (${model.ownedBy ?? "?"})`
 * ```
 */
export interface ListedModel {
  readonly id: string
  /** `owned_by`: the organisation, or for local servers often the server itself (`vllm`, `llamacpp`). */
  readonly ownedBy: string | undefined
}

/**
 * The models of a `GET /models` body, or undefined when the body is not a model list (no `data`
 * array). Entries without a string `id` are left out.
 *
 * @example
 * ```ts
 * import { readModelList } from "@tool-rescue/wire"
 *
 * readModelList({ object: "list", data: [{ id: "qwen3-coder", owned_by: "vllm" }, { id: 3 }] })
 * // [{ id: "qwen3-coder", ownedBy: "vllm" }]
 * readModelList({ error: "no" }) // undefined
 * ```
 */
export function readModelList(body: unknown): ListedModel[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.data)) return undefined
  return body.data.flatMap((entry: unknown) =>
    isRecord(entry) && typeof entry.id === "string"
      ? [{ id: entry.id, ownedBy: typeof entry.owned_by === "string" ? entry.owned_by : undefined }]
      : [],
  )
}
