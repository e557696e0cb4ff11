/**
 * The content codings of an upstream response (RFC 9110 §8.4), listed in the order they were
 * applied (`gzip, br`: gzip first), as the proxy's upstream clients decode them: every coding
 * known → decoded, last applied first, and the `content-encoding` header dropped with them; any
 * coding unknown (or none to decode) → the bytes pass on as they came, the header kept, so what
 * reaches the client is always what its header says.
 */

/** The codings of a `content-encoding` value, lower-case, `identity` left out (none: an empty list). */
export function contentCodings(value: string | null): string[] {
  if (value === null) return []
  const codings: string[] = []
  for (const token of value.split(",")) {
    const coding = token.trim().toLowerCase()
    if (coding !== "" && coding !== "identity") codings.push(coding)
  }
  return codings
}

/**
 * The decoders for `codings` in the order to apply them (the last coding applied is undone
 * first), or undefined when one of them is not in `known`.
 */
export function decodersFor<D>(
  codings: readonly string[],
  known: Readonly<Record<string, D>>,
): D[] | undefined {
  const decoders: D[] = []
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!
    if (!Object.hasOwn(known, coding)) return undefined
    decoders.push(known[coding]!)
  }
  return decoders
}
