import type { LinePiece } from "../scan/line-reader.ts"
import { readFailedRecord } from "./failed-record.ts"
import type { ReportAggregator } from "./report-data.ts"

/**
 * Feeds the lines of one failed log to `aggregator`: each non-empty line is parsed as JSON and read
 * with `readFailedRecord`; a line that is not a record is reported with its number. Memory stays
 * bounded by one line (an overlong line, read in pieces, is reported once and skipped).
 *
 * @example
 * ```ts
 * aggregator.file("failed.jsonl")
 * await readFailedLog(readLines(createReadStream("failed.jsonl")), aggregator)
 * ```
 */
export async function readFailedLog(
  lines: AsyncIterable<LinePiece>,
  aggregator: ReportAggregator,
  onProgress: (lines: number, bytes: number) => void = () => {},
): Promise<void> {
  for await (const piece of lines) {
    if (piece.last) aggregator.line(piece.number)
    onProgress(piece.number, piece.bytesRead)
    if (!(piece.first && piece.last)) {
      if (piece.first) aggregator.malformed(piece.number, "line too long to read as one JSON value")
      continue
    }
    const text = piece.text.trim()
    if (text.length === 0) continue
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      aggregator.malformed(
        piece.number,
        `invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      )
      continue
    }
    const record = readFailedRecord(value)
    if (typeof record === "string") aggregator.malformed(piece.number, record)
    else aggregator.record(record)
  }
}
