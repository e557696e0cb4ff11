/**
 * "Did you mean": the offered tool names closest to a name that is not offered, closest first.
 *
 * Names are compared case- and separator-insensitively (`readFile`, `read-file`, `Read File` and
 * `read_file` are the same name), then by optimal-string-alignment distance (Levenshtein plus
 * adjacent transpositions: `raed_file` is one edit from `read_file`). A name is a near miss when
 * its distance is at most 40% of the longer normalized name (at least 1). Ties keep the offered
 * order. The model wrote the unknown name, so it is clipped to {@link MAX_NAME} characters: the
 * cost stays O(MAX_NAME × name length) per offered name whatever the model wrote.
 *
 * @example
 * ```ts
 * import { suggestToolNames } from "@tool-rescue/recovery/adapter"
 *
 * suggestToolNames("readFile", ["bash", "read_file", "write_file"]) // ["read_file"]
 * suggestToolNames("wrte_file", ["bash", "read_file", "write_file"]) // ["write_file"]
 * suggestToolNames("rm", ["read_file"]) // []
 * ```
 */
export function suggestToolNames(name: string, offered: Iterable<string>, limit = 3): string[] {
  const wanted = normalizeToolName(name.slice(0, MAX_NAME))
  const scored: Array<{ name: string; distance: number; index: number }> = []
  let index = 0
  for (const candidate of offered) {
    const other = normalizeToolName(candidate.slice(0, MAX_NAME))
    const distance = osaDistance(wanted, other)
    const allowed = Math.max(1, Math.floor(Math.max(wanted.length, other.length) * 0.4))
    if (distance <= allowed) scored.push({ name: candidate, distance, index })
    index++
  }
  scored.sort((a, b) => a.distance - b.distance || a.index - b.index)
  return scored.slice(0, Math.max(0, limit)).map((s) => s.name)
}

/** The longest prefix of a name that is compared; tool names are far shorter. */
const MAX_NAME = 128

/**
 * Lower case without separators: `Read-File`, `read_file` and `readFile` → `readfile`. The one
 * notion of "the same tool name" for suggestions and for announced calls.
 */
export function normalizeToolName(name: string): string {
  let out = ""
  for (const ch of name.toLowerCase()) if (!SEPARATORS.has(ch)) out += ch
  return out
}

const SEPARATORS = new Set(["_", "-", ".", " ", "/", ":"])

/** Optimal string alignment distance, three rolling rows. */
function osaDistance(a: string, b: string): number {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1)
      current[j] = best
    }
    ;[before, previous, current] = [previous, current, before]
  }
  return previous[b.length]!
}
