import { describe, expect, it } from "vitest"
import { type LinePiece, readLines } from "../src/scan/line-reader.ts"

async function lines(chunks: (string | Uint8Array)[], maxLineChars?: number): Promise<LinePiece[]> {
  const out: LinePiece[] = []
  const source = (async function* () {
    yield* chunks
  })()
  for await (const line of readLines(source, maxLineChars === undefined ? {} : { maxLineChars }))
    out.push(line)
  return out
}

describe("readLines", () => {
  it("splits on LF and CRLF, numbers lines and keeps a last line without newline", async () => {
    const got = await lines(["a\r\nbb\n", "\nc"])
    expect(got.map((l) => [l.number, l.text, l.eol])).toEqual([
      [1, "a", "\r\n"],
      [2, "bb", "\n"],
      [3, "", "\n"],
      [4, "c", ""],
    ])
    expect(got.every((l) => l.first && l.last)).toBe(true)
  })

  it("decodes UTF-8 sequences split across chunks and drops a BOM", async () => {
    const bytes = Buffer.from("\ufeff北京\n｜tool▁calls｜\n", "utf8")
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte))
    const got = await lines(chunks)
    expect(got.map((l) => l.text)).toEqual(["北京", "｜tool▁calls｜"])
    expect(got.at(-1)?.bytesRead).toBe(bytes.length)
  })

  it("joins a CRLF split across chunks", async () => {
    const got = await lines(["a\r", "\nb"])
    expect(got.map((l) => [l.text, l.eol])).toEqual([
      ["a", "\r\n"],
      ["b", ""],
    ])
  })

  it("hands an overlong line over in pieces that reassemble it", async () => {
    const long = "x".repeat(25)
    const got = await lines([long.slice(0, 7), long.slice(7, 18), `${long.slice(18)}\nshort\n`], 10)
    const first = got.filter((l) => l.number === 1)
    expect(first.length).toBeGreaterThan(1)
    expect(first[0]?.first).toBe(true)
    expect(first.at(-1)?.last).toBe(true)
    expect(first.map((l) => l.text).join("")).toBe(long)
    expect(got.filter((l) => l.number === 2).map((l) => [l.text, l.first, l.last])).toEqual([
      ["short", true, true],
    ])
  })

  it("yields nothing for empty input", async () => {
    expect(await lines([])).toEqual([])
  })
})
