import type { Style } from "../style.ts"
import { formatTable, type TableColumn } from "../table.ts"
import { excerpt, formatCount, formatPercent, plural } from "../text.ts"
import { type Count, modelTotals, type ReportData } from "./report-data.ts"

/** A titled table, rendered as a terminal table or a Markdown table. */
interface Section {
  readonly title: string
  readonly columns: readonly TableColumn[]
  readonly rows: readonly (readonly string[])[]
}

const rate = (value: number | null): string => (value === null ? "–" : `${(value * 100).toFixed(1)}%`)

/** At most `max` rows of a count list, the rest folded into one `(n more)` row. */
function countRows(list: readonly Count[], total: number, max: number): string[][] {
  const rows = list
    .slice(0, max)
    .map((count) => [count.name, formatCount(count.records), formatPercent(count.records, total)])
  if (list.length > max) {
    const rest = list.slice(max).reduce((sum, count) => sum + count.records, 0)
    rows.push([`(${list.length - max} more)`, formatCount(rest), formatPercent(rest, total)])
  }
  return rows
}

const SPARKS = "▁▂▃▄▅▆▇█"

/** A sparkline of `counts` (one character a bucket, the highest bucket full). */
export function sparkline(counts: readonly number[]): string {
  const max = Math.max(0, ...counts)
  return counts
    .map((n) =>
      n === 0 ? " " : SPARKS[Math.min(SPARKS.length - 1, Math.ceil((n / max) * SPARKS.length) - 1)],
    )
    .join("")
}

function bucketLabel(hours: number): string {
  if (hours % 24 === 0) return hours === 24 ? "day" : `${hours / 24} days`
  return hours === 1 ? "hour" : `${hours} hours`
}

function sections(data: ReportData, maxRows: number): Section[] {
  const out: Section[] = []
  const withRates = data.models.some((model) => model.requestsWithTools !== null)
  out.push({
    title: "Leaks per model",
    columns: [
      { header: "model" },
      { header: "leaks", align: "right" },
      ...(withRates
        ? [
            { header: "requests with tools", align: "right" as const },
            { header: "leak rate", align: "right" as const },
          ]
        : []),
      { header: "retries", align: "right" },
      { header: "recovered", align: "right" },
      { header: "success", align: "right" },
      { header: "formats" },
    ],
    rows: data.models.map((model) => [
      model.model,
      formatCount(model.records),
      ...(withRates
        ? [
            model.requestsWithTools === null ? "–" : formatCount(model.requestsWithTools),
            rate(model.leakRate),
          ]
        : []),
      formatCount(model.recovery.retries),
      formatCount(model.recovery.recovered),
      rate(model.recovery.rate),
      model.formats
        .slice(0, 3)
        .map((format) => `${format.name} ×${formatCount(format.records)}`)
        .join(", ") + (model.formats.length > 3 ? ", …" : ""),
    ]),
  })
  const share = [
    { header: "leaks", align: "right" as const },
    { header: "share", align: "right" as const },
  ]
  out.push({
    title: "Leaks per format",
    columns: [{ header: "format" }, ...share],
    rows: countRows(data.formats, data.records, maxRows),
  })
  out.push({
    title: "Leaks per tool",
    columns: [{ header: "tool" }, ...share],
    rows: countRows(data.tools, data.records, maxRows),
  })
  out.push({
    title: "Outcomes",
    columns: [{ header: "outcome" }, ...share],
    rows: countRows(data.outcomes, data.records, maxRows),
  })
  out.push({
    title: "Every record, by model, format and outcome",
    columns: [
      { header: "model" },
      { header: "format" },
      { header: "outcome" },
      { header: "leaks", align: "right" },
    ],
    rows: data.rows.map((row) => [row.model, row.format, row.outcome, formatCount(row.records)]),
  })
  if (data.timeline.buckets > 0) {
    out.push({
      title: `Over time (one character per ${bucketLabel(data.timeline.bucketHours)} from ${data.timeline.start})`,
      columns: [{ header: "model" }, { header: "leaks", align: "right" }, { header: "timeline" }],
      rows: data.models.map((model) => {
        const sums = modelTotals(data.timeline, model.model)
        return [model.model, formatCount(sums.reduce((a, b) => a + b, 0)), `|${sparkline(sums)}|`]
      }),
    })
  }
  return out
}

function summaryLines(data: ReportData): string[] {
  const lines = [
    `${plural(data.records, "leak")} in ${plural(data.files.length, "file")}` +
      ` (${plural(
        data.files.reduce((sum, file) => sum + file.lines, 0),
        "line",
      )}, ${plural(data.malformedLines, "malformed line")})` +
      (data.since === null
        ? ""
        : `; since ${data.since}, ${formatCount(data.excluded)} earlier or undated left out`),
  ]
  if (data.partialRecords > 0) {
    lines.push(
      `${plural(data.partialRecords, "record")} from an older or partial log, counted with ` +
        `${data.missingFields.map((field) => field.name).join(", ")} unknown`,
    )
  }
  lines.push(
    data.recovery.retries === 0
      ? "recovery: no retry in the log"
      : `recovery: ${formatCount(data.recovery.recovered)} of ${plural(data.recovery.retries, "retry", "retries")} ` +
          `recovered (${rate(data.recovery.rate)}); ${formatCount(data.recovery.failedRetries)} leaked again`,
  )
  if (data.metrics !== null) {
    lines.push(
      data.metrics.error === null
        ? `leak rates from ${data.metrics.url}`
        : `no leak rates: ${data.metrics.error}`,
    )
  }
  return lines
}

/**
 * The terminal report.
 *
 * @example
 * ```ts
 * io.stdout.write(renderReportText(data, createStyle(io.stdout, io.env)))
 * ```
 */
export function renderReportText(data: ReportData, style: Style): string {
  const out: string[] = [
    `${style.bold("tool-rescue report")}  ${data.files.map((file) => file.file).join(", ")}\n`,
  ]
  for (const line of summaryLines(data)) out.push(`  ${line}\n`)
  if (data.records > 0) {
    for (const section of sections(data, 10)) {
      out.push(`\n${style.bold(section.title)}\n`)
      out.push(formatTable(section.columns, section.rows, { header: style.bold }))
    }
  }
  if (data.malformed.length > 0) {
    out.push(`\n${style.yellow("Malformed lines")} ${style.dim("(skipped)")}\n`)
    for (const line of data.malformed) out.push(`  ${line.file}:${line.line}  ${excerpt(line.reason, 100)}\n`)
    if (data.malformedLines > data.malformed.length)
      out.push(`  … and ${formatCount(data.malformedLines - data.malformed.length)} more\n`)
  }
  return out.join("")
}

/** A Markdown table cell: pipes escaped, one line. */
function cell(text: string): string {
  return excerpt(text, 200).replace(/\|/g, "\\|")
}

function markdownTable(section: Section): string {
  const head = `| ${section.columns.map((column) => cell(column.header)).join(" | ")} |`
  const rule = `|${section.columns.map((column) => (column.align === "right" ? " ---: " : " --- ")).join("|")}|`
  const rows = section.rows.map((row) => `| ${row.map(cell).join(" | ")} |`)
  return [head, rule, ...rows].join("\n")
}

/**
 * The report as Markdown, to paste into a bug report for the model's server.
 *
 * @example
 * ```ts
 * io.stdout.write(renderReportMarkdown(data))
 * ```
 */
export function renderReportMarkdown(data: ReportData): string {
  const out: string[] = ["## Tool calls leaked as text (tool-rescue report)", ""]
  for (const line of summaryLines(data)) out.push(`- ${cell(line)}`)
  if (data.records > 0) {
    for (const section of sections(data, 25)) {
      out.push("", `### ${section.title}`, "")
      out.push(markdownTable(section))
    }
  }
  if (data.malformedLines > 0) {
    out.push("", `### Malformed lines (${formatCount(data.malformedLines)}, skipped)`, "")
    for (const line of data.malformed) out.push(`- \`${cell(line.file)}:${line.line}\` ${cell(line.reason)}`)
  }
  out.push(
    "",
    "<sub>From the failed log of the tool-rescue proxy (https://github.com/tool-rescue/tool-rescue): each record is a response whose tool call was written as text.</sub>",
    "",
  )
  return out.join("\n")
}
