import { StringDecoder } from "node:string_decoder"

/**
 * One line of input, or one piece of a line longer than `maxLineChars` (an overlong line comes
 * as several pieces with the same `number`: `first` on the first, `last` on the last).
 */
export interface LinePiece {
  /** The text, without its line terminator. */
  readonly text: string
  /** 1-based line number. */
  readonly number: number
  /** The terminator that ended the line: `"\n"`, `"\r\n"`, or `""` (end of input, or not the last piece). */
  readonly eol: string
  readonly first: boolean
  readonly last: boolean
  /** Bytes consumed from the source so far (for progress). */
  readonly bytesRead: number
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Longest line held whole, in UTF-16 units; longer lines come in pieces. @defaultValue 64 Mi */
  readonly maxLineChars?: number
}

const CR = 0x0d

/**
 * Splits a byte stream into lines in constant memory (one line, or one piece of an overlong
 * line, at a time). UTF-8 sequences split across chunks are decoded whole; a leading BOM is
 * dropped; `\r\n` and `\n` both end a line.
 *
 * @example
 * ```ts
 * import { createReadStream } from "node:fs"
 *
 * for await (const line of readLines(createReadStream("responses.jsonl"))) console.log(line.number, line.text)
 * ```
 */
export async function* readLines(
  source: AsyncIterable<Uint8Array | string>,
  options: ReadLinesOptions = {},
): AsyncGenerator<LinePiece, void, undefined> {
  const maxLineChars = options.maxLineChars ?? 64 * 1024 * 1024
  const decoder = new StringDecoder("utf8")
  // Pieces of the current line, joined once when the line ends (no quadratic concatenation).
  let parts: string[] = []
  let partsLength = 0
  let number = 1
  let first = true
  let bytesRead = 0
  let atStart = true

  function* emit(chunk: string): Generator<LinePiece, void, undefined> {
    let from = 0
    for (;;) {
      const at = chunk.indexOf("\n", from)
      if (at === -1) break
      let text = parts.length === 0 ? chunk.slice(from, at) : parts.join("") + chunk.slice(from, at)
      parts = []
      partsLength = 0
      let eol = "\n"
      if (text.length > 0 && text.charCodeAt(text.length - 1) === CR) {
        text = text.slice(0, -1)
        eol = "\r\n"
      }
      yield { text, number, eol, first, last: true, bytesRead }
      number++
      first = true
      from = at + 1
    }
    if (from < chunk.length) {
      const rest = from === 0 ? chunk : chunk.slice(from)
      parts.push(rest)
      partsLength += rest.length
      if (partsLength > maxLineChars) {
        // Keep a trailing CR back: it may be the first half of a CRLF.
        let text = parts.join("")
        parts = []
        partsLength = 0
        if (text.charCodeAt(text.length - 1) === CR) {
          parts.push("\r")
          partsLength = 1
          text = text.slice(0, -1)
        }
        yield { text, number, eol: "", first, last: false, bytesRead }
        first = false
      }
    }
  }

  for await (const chunk of source) {
    let text: string
    if (typeof chunk === "string") {
      text = chunk
      bytesRead += Buffer.byteLength(chunk)
    } else {
      text = decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
      bytesRead += chunk.byteLength
    }
    if (atStart && text.length > 0) {
      atStart = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (text.length > 0) yield* emit(text)
  }
  const tail = decoder.end()
  if (tail.length > 0) yield* emit(tail)
  if (parts.length > 0) {
    const text = parts.join("")
    yield { text, number, eol: "", first, last: true, bytesRead }
  } else if (!first) {
    // An overlong last line whose final piece was already sent: close it.
    yield { text: "", number, eol: "", first: false, last: true, bytesRead }
  }
}
