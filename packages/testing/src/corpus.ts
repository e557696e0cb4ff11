import { corpusData } from "./corpus-data.ts"
import type { CorpusSample } from "./corpus-sample.ts"

export type { CorpusSample }

/**
 * The labelled corpus of real leaked tool calls (see the package's `corpus/README.md`): text
 * models really emitted, with the offered tools and the expected detection under the default
 * policy. `scope: "core"` samples must pass; `"stretch"` ones cover shapes outside the default
 * format set.
 *
 * @example
 * ```ts
 * import { scan, isRecoverable } from "@tool-rescue/detector"
 * import { corpus } from "@tool-rescue/testing"
 *
 * for (const sample of corpus.filter((s) => s.scope === "core")) {
 *   const { markup } = scan(sample.text, { tools: sample.tools })
 *   const leaked = markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)
 *   console.assert(JSON.stringify(leaked) === JSON.stringify(sample.expect.tools), sample.id)
 * }
 * ```
 */
export const corpus: readonly CorpusSample[] = corpusData
