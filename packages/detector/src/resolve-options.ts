/**
 * Validates {@link DetectorOptions}. Invalid options are API misuse: they throw a `TypeError`
 * (model output never does).
 */

import { FORMAT_IDS, type FormatId } from "./format-ids.ts"
import { formats } from "./format-info.ts"
import type { DetectorOptions } from "./types.ts"

/** Options after validation and defaults. */
export interface ResolvedOptions {
  /** A copy of the caller's list (which may change after the detector is made). */
  readonly tools: readonly string[]
  readonly enabled: ReadonlySet<FormatId>
  readonly maxHoldChars: number
}

const KNOWN: ReadonlySet<string> = new Set(FORMAT_IDS)
const DEFAULT_FORMATS: ReadonlySet<FormatId> = new Set(
  formats.filter((f) => f.enabledByDefault).map((f) => f.id),
)

/** The default cap on an undecided candidate. */
export const DEFAULT_MAX_HOLD_CHARS = 4096

export function resolveOptions(options: DetectorOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "tool-rescue: createDetector(options) expects an object, e.g. { tools: ['read_file'] }",
    )
  }
  const tools = options.tools ?? []
  if (!Array.isArray(tools) || !tools.every((t) => typeof t === "string")) {
    throw new TypeError("tool-rescue: `tools` must be an array of tool names (strings)")
  }
  let enabled = DEFAULT_FORMATS
  if (options.formats !== undefined) {
    if (!Array.isArray(options.formats))
      throw new TypeError("tool-rescue: `formats` must be an array of format ids")
    for (const id of options.formats) {
      if (!KNOWN.has(id))
        throw new TypeError(`tool-rescue: unknown format ${JSON.stringify(id)}; see \`formats\``)
    }
    enabled = new Set(options.formats)
  }
  const maxHoldChars = options.maxHoldChars ?? DEFAULT_MAX_HOLD_CHARS
  if (typeof maxHoldChars !== "number" || !Number.isInteger(maxHoldChars) || maxHoldChars < 1) {
    throw new TypeError("tool-rescue: `maxHoldChars` must be a positive integer")
  }
  return { tools: [...tools], enabled, maxHoldChars }
}
