import type { LinePiece } from "./line-reader.ts"
import type { ScanReport, ScanSession } from "./scan-session.ts"

/** How the input is read. */
export type InputFormat = "jsonl" | "json" | "sse" | "text"

/** What {@link scanLines} read. */
export interface ScanInputResult {
  readonly format: InputFormat
  readonly lines: number
  readonly bytes: number
  readonly report: ScanReport
}

/** Options of {@link scanLines}. */
export interface ScanLinesOptions {
  /** `auto` picks from the first non-empty lines. */
  readonly format: InputFormat | "auto"
  /** Called after each line with the lines and bytes read so far. */
  readonly onProgress?: (lines: number, bytes: number, report: ScanReport) => void
  /** Largest JSON document read whole, in UTF-16 units. @defaultValue 256 Mi */
  readonly maxDocumentChars?: number
}

/** Thrown for input that cannot be read at all (an invalid or oversized JSON document). */
export class InputError extends Error {
  override readonly name = "InputError"
}

/**
 * Feeds `lines` to `session` in the input's format and ends the session. JSONL and SSE lines
 * that are not valid JSON are reported through `session.skip` with their line number; a JSON
 * document that does not parse throws {@link InputError}.
 *
 * @example
 * ```ts
 * const result = await scanLines(readLines(createReadStream("a.jsonl")), session, { format: "auto" })
 * ```
 */
export async function scanLines(
  lines: AsyncIterable<LinePiece>,
  session: ScanSession,
  options: ScanLinesOptions,
): Promise<ScanInputResult> {
  const iterator = lines[Symbol.asyncIterator]()
  const peeked: LinePiece[] = []
  let format: InputFormat
  if (options.format === "auto") {
    format = await detectFormat(iterator, peeked)
  } else {
    format = options.format
  }
  let count = 0
  let bytes = 0
  const reader = formatReader(format, session, options.maxDocumentChars ?? 256 * 1024 * 1024)
  const take = (piece: LinePiece): void => {
    if (piece.last) count = piece.number
    bytes = piece.bytesRead
    reader.line(piece)
    options.onProgress?.(count, bytes, session.report)
  }
  for (const piece of peeked) take(piece)
  for (;;) {
    const step = await iterator.next()
    if (step.done === true) break
    take(step.value)
  }
  reader.end()
  return { format, lines: count, bytes, report: session.end() }
}

/** Reads ahead to the first non-empty line (and, if needed, the second) to pick the format. */
async function detectFormat(iterator: AsyncIterator<LinePiece>, peeked: LinePiece[]): Promise<InputFormat> {
  const nextNonEmpty = async (): Promise<LinePiece | undefined> => {
    for (;;) {
      const step = await iterator.next()
      if (step.done === true) return undefined
      peeked.push(step.value)
      if (step.value.text.trim().length > 0) return step.value
    }
  }
  const first = await nextNonEmpty()
  if (first === undefined) return "jsonl"
  const text = first.text.trimStart()
  if (/^(data|event|id|retry):/.test(text) || text.startsWith(":")) return "sse"
  if (!text.startsWith("{") && !text.startsWith("[")) return "text"
  if (!first.last || parses(text)) return "jsonl"
  // A first line that does not parse alone: a pretty-printed document, unless the next line is a
  // JSON object on its own (then it is JSONL whose first line is malformed).
  const second = await nextNonEmpty()
  if (second?.last === true && second.text.trimStart().startsWith("{") && parses(second.text)) return "jsonl"
  return "json"
}

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

interface FormatReader {
  line(piece: LinePiece): void
  end(): void
}

function formatReader(format: InputFormat, session: ScanSession, maxDocumentChars: number): FormatReader {
  switch (format) {
    case "jsonl":
      return jsonlReader(session)
    case "sse":
      return sseReader(session)
    case "json":
      return documentReader(session, maxDocumentChars)
    case "text":
      return {
        line: (piece) => session.text(piece.eol.length > 0 ? piece.text + piece.eol : piece.text),
        end() {},
      }
    default:
      return format satisfies never
  }
}

/** An overlong line is reported once, at its first piece, and its other pieces are ignored. */
function tooLong(piece: LinePiece, session: ScanSession): boolean {
  if (piece.first && piece.last) return false
  if (piece.first) session.skip("line too long to read as one JSON value (over 64 MiB)", piece.number)
  return true
}

function parseLine(text: string, line: number, session: ScanSession): void {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    session.skip(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`, line)
    return
  }
  session.value(value, line)
}

function jsonlReader(session: ScanSession): FormatReader {
  return {
    line(piece) {
      if (tooLong(piece, session)) return
      const text = piece.text.trim()
      if (text.length > 0) parseLine(text, piece.number, session)
    },
    end() {},
  }
}

/**
 * Server-sent events (WHATWG HTML §9.2): `data:` lines accumulate until a blank line ends the
 * event; `event:`, `id:`, `retry:` and `:` comments carry nothing to scan. A bare JSON line is
 * read as one event (logs often mix both).
 */
function sseReader(session: ScanSession): FormatReader {
  let data: string[] = []
  let dataLine = 0
  const dispatch = (): void => {
    if (data.length === 0) return
    const payload = data.join("\n")
    data = []
    if (payload.trim() === "[DONE]") session.done()
    else if (payload.trim().length > 0) parseLine(payload, dataLine, session)
  }
  return {
    line(piece) {
      if (tooLong(piece, session)) return
      const text = piece.text
      if (text.length === 0) {
        dispatch()
        return
      }
      if (text.startsWith("data:")) {
        if (data.length === 0) dataLine = piece.number
        data.push(text.charCodeAt(5) === 0x20 ? text.slice(6) : text.slice(5))
        return
      }
      if (text.startsWith("{") || text.startsWith("[")) {
        dispatch()
        parseLine(text, piece.number, session)
        return
      }
      if (text.startsWith(":") || /^(event|id|retry)(:|$)/.test(text)) return
      session.skip(`not a server-sent event field: ${text.slice(0, 40)}`, piece.number)
    },
    end: dispatch,
  }
}

function documentReader(session: ScanSession, maxChars: number): FormatReader {
  const parts: string[] = []
  let length = 0
  return {
    line(piece) {
      length += piece.text.length + piece.eol.length
      if (length > maxChars) {
        throw new InputError(
          `a JSON document over ${Math.round(maxChars / 1024 / 1024)} MiB is not read whole: write one response a line (JSONL)`,
        )
      }
      parts.push(piece.text, piece.eol)
    },
    end() {
      let value: unknown
      try {
        value = JSON.parse(parts.join(""))
      } catch (error) {
        throw new InputError(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
      }
      parts.length = 0
      session.value(value, undefined, "")
    },
  }
}
