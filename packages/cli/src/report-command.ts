import { writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import { integerFlag, parseCommandArgs, stringFlag } from "./args.ts"
import { CliError, ExitCode, usageError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"
import { describeFsError, openInput } from "./open-input.ts"
import { createProgressLine } from "./progress.ts"
import { fetchRequestsWithTools } from "./report/proxy-metrics-reader.ts"
import { readFailedLog } from "./report/read-failed-log.ts"
import { createReportAggregator } from "./report/report-data.ts"
import { renderReportHtml } from "./report/report-html.ts"
import { renderReportMarkdown, renderReportText } from "./report/report-render.ts"
import { readLines } from "./scan/line-reader.ts"
import { createStyle } from "./style.ts"
import { formatBytes, plural } from "./text.ts"

const RELATIVE = /^(\d+)\s*(m|h|d|w)$/
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * `--since`: an ISO 8601 date or time (`2026-05-01`, `2026-05-01T12:00Z`) or a span back from
 * `now` (`30m`, `24h`, `7d`, `2w`), as milliseconds since the epoch.
 *
 * @example
 * ```ts
 * parseSince("24h", Date.parse("2026-05-02T00:00Z")) // Date.parse("2026-05-01T00:00Z")
 * ```
 */
export function parseSince(raw: string, now: number): number {
  const relative = RELATIVE.exec(raw.trim())
  if (relative !== null) return now - Number(relative[1]) * UNIT_MS[relative[2]!]!
  const at = Date.parse(raw)
  if (Number.isNaN(at))
    throw usageError(`--since must be an ISO 8601 date or a span such as 24h or 7d, got '${raw}'`)
  return at
}

/**
 * `tool-rescue report <failed log…> [options]`: see `tool-rescue report --help`. Returns 0 when
 * the report was written, 2 (through a thrown `CliError`) for bad arguments or unreadable input.
 *
 * @example
 * ```ts
 * import { processIo, runReport } from "@tool-rescue/cli"
 *
 * process.exitCode = await runReport(["failed.jsonl", "--markdown"], processIo())
 * ```
 */
export async function runReport(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      metrics: { type: "string" },
      since: { type: "string" },
      json: { type: "boolean" },
      markdown: { type: "boolean" },
      html: { type: "string" },
      timeout: { type: "string" },
    },
    Number.MAX_SAFE_INTEGER,
  )
  if (positionals.length === 0) throw usageError("needs a failed log to read (or - for standard input)")
  const outputs = [values.json === true, values.markdown === true].filter(Boolean).length
  if (outputs > 1) throw usageError("--json and --markdown print different reports: choose one")
  const sinceRaw = stringFlag(values, "since")
  const since = sinceRaw === undefined ? undefined : parseSince(sinceRaw, Date.now())
  const metricsUrl = stringFlag(values, "metrics")
  if (metricsUrl !== undefined && !/^https?:\/\//.test(metricsUrl))
    throw usageError(
      `--metrics must be an http(s) URL such as http://127.0.0.1:8787/metrics, got '${metricsUrl}'`,
    )
  const timeoutMs = integerFlag(values, "timeout", 10, { min: 1, max: 600 }) * 1000
  const htmlPath = stringFlag(values, "html")

  const aggregator = createReportAggregator(since === undefined ? {} : { since })
  const progress = createProgressLine(io.stderr, true)
  for (const input of positionals) {
    const name = input === "-" ? "standard input" : input
    const source = await openInput(input, io)
    aggregator.file(name)
    try {
      await readFailedLog(readLines(source), aggregator, (lines, bytes) =>
        progress.update(
          `reading ${name} · ${plural(lines, "line")} · ${formatBytes(bytes)} · ${plural(aggregator.records, "leak")}`,
        ),
      )
    } catch (error) {
      progress.clear()
      if (typeof (error as { code?: unknown }).code === "string")
        throw new CliError(`cannot read ${name}: ${describeFsError(error)}`)
      throw error
    }
  }
  progress.clear()
  const metrics =
    metricsUrl === undefined
      ? undefined
      : { url: metricsUrl, ...(await fetchRequestsWithTools(metricsUrl, timeoutMs)) }
  const data = aggregator.result(metrics)

  if (htmlPath !== undefined) {
    const path = resolve(io.cwd, htmlPath)
    try {
      await writeFile(path, renderReportHtml(data, new Date()), "utf8")
    } catch (error) {
      throw new CliError(`cannot write ${htmlPath}: ${describeFsError(error)}`)
    }
    io.stderr.write(`wrote ${htmlPath}\n`)
  }
  if (values.json === true) io.stdout.write(`${JSON.stringify(data, null, 2)}\n`)
  else if (values.markdown === true) io.stdout.write(renderReportMarkdown(data))
  else if (htmlPath === undefined) io.stdout.write(renderReportText(data, createStyle(io.stdout, io.env)))
  return ExitCode.ok
}
