import { parseFailedRecord } from "@tool-rescue/proxy"
import type { LinePiece } from "../scan/line-reader.ts"
import type { ReportAggregator } from "./report-data.ts"

/**
 * Feeds the lines of one failed log to `aggregator`: each non-empty line is parsed as JSON and read
 * by the proxy's own reader, leniently (`parseFailedRecord(value, { lenient: true })`: older logs
 * lack fields, which the report counts and names); a line that is not a record is reported with
 * its number and skipped. Memory stays
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
    const parsed = parseFailedRecord(value, { lenient: true })
    if (parsed.kind === "invalid") aggregator.malformed(piece.number, parsed.reason)
    else aggregator.record(parsed.record, parsed.missing)
  }
}
