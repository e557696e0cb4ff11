/**
 * The oldest Node the CLI runs on: its `engines` (its dependencies' own: `eventsource-parser`
 * needs 22.12). Kept with no imports, so the executable can check it before it loads anything
 * an older Node lacks.
 */
export const MIN_NODE: readonly [major: number, minor: number] = [22, 12]

/**
 * The one line the CLI prints on a Node older than {@link MIN_NODE}, or undefined on a supported one.
 *
 * @example
 * ```ts
 * unsupportedNode("20.20.2") // "tool-rescue needs Node 22.12 or later; this is Node 20.20.2."
 * unsupportedNode("24.21.0") // undefined
 * ```
 */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  const [minMajor, minMinor] = MIN_NODE
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined
  return `tool-rescue needs Node ${minMajor}.${minMinor} or later; this is Node ${version}.`
}
