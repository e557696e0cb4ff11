import { fc, test } from "@fast-check/vitest"
import { expect } from "vitest"
import { readLines } from "../src/scan/line-reader.ts"

/** Cuts `bytes` at the given (sorted, deduplicated) offsets. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const point of points) {
    chunks.push(bytes.subarray(from, point))
    from = point
  }
  chunks.push(bytes.subarray(from))
  return chunks
}

async function read(chunks: Uint8Array[], maxLineChars: number) {
  const out: { number: number; text: string; eol: string }[] = []
  const source = (async function* () {
    yield* chunks
  })()
  for await (const piece of readLines(source, { maxLineChars })) out.push(piece)
  return out
}

const text = fc.array(
  fc.oneof(fc.string({ unit: "grapheme" }), fc.constantFrom("\n", "\r\n", "\r", "北", "｜", "😀", '{"a":1}')),
  { maxLength: 30 },
)

test.prop([text, fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 40 })])(
  "any chunking gives the same lines, and the pieces reassemble the input",
  async (parts, offsets, maxLineChars) => {
    // Grapheme strings are well-formed, so the text survives UTF-8.
    const input = parts.join("")
    const bytes = Buffer.from(input, "utf8")
    const whole = await read([bytes], maxLineChars)
    const chunked = await read(cut(bytes, offsets), maxLineChars)
    const joined = (pieces: typeof whole) => pieces.map((p) => p.text + p.eol).join("")
    // Lossless, but for a leading BOM, which is dropped.
    const expected = input.startsWith("\ufeff") ? input.slice(1) : input
    expect(joined(chunked)).toBe(expected)
    // Same line structure regardless of where the chunks were cut.
    const byLine = (pieces: typeof whole) => {
      const lines = new Map<number, string>()
      for (const p of pieces) lines.set(p.number, (lines.get(p.number) ?? "") + p.text + p.eol)
      return [...lines]
    }
    expect(byLine(chunked)).toEqual(byLine(whole))
  },
)
