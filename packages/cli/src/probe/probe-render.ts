import type { Style } from "../style.ts"
import { formatTable, type TableColumn } from "../table.ts"
import { formatMs, formatPercent } from "../text.ts"
import { type Diagnosis, diagnosisLines } from "./probe-doctor.ts"
import type { ProbeConfig, ProbeOutcome, ProbeResult, ProbeRun } from "./run-probe.ts"

/** The figures of a probe, computed once for both renderings. */
export interface ProbeSummary {
  readonly runs: number
  readonly without: {
    readonly toolCalls: number
    readonly leaks: number
    readonly text: number
    /** Leaks / runs. */
    readonly leakRate: number
    readonly medianMs: number
  }
  readonly with: {
    readonly toolCalls: number
    /** Turns whose first response leaked (a recovery started). */
    readonly recoveries: number
    readonly recovered: number
    readonly recoveredToText: number
    readonly failed: number
    readonly text: number
    /** (recovered + recovered to text) / recoveries. */
    readonly recoveryRate: number
    readonly medianMs: number
    /** Median time from the recovery decision to the end of a recovered turn. */
    readonly medianAddedMs: number
    readonly maxAddedMs: number
  }
  readonly formats: Readonly<Record<string, number>>
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const count = (runs: readonly ProbeRun[], outcome: ProbeOutcome): number =>
  runs.filter((run) => run.outcome === outcome).length

/**
 * Computes the leak rate, the recovery success rate and the latencies of a probe.
 *
 * @example
 * ```ts
 * const summary = summarizeProbe(result)
 * console.log(summary.without.leakRate)
 * ```
 */
export function summarizeProbe(result: ProbeResult): ProbeSummary {
  const runs = result.without.length
  const leaks = count(result.without, "leak")
  const recovered = count(result.with, "recovered")
  const recoveredToText = count(result.with, "recovered-text")
  const failed = count(result.with, "failed")
  const recoveries = recovered + recoveredToText + failed
  const added = result.with.flatMap((run) =>
    run.addedMs === undefined || run.outcome === "failed" ? [] : [run.addedMs],
  )
  const formats: Record<string, number> = {}
  for (const run of [...result.without, ...result.with]) {
    if (run.format !== undefined) formats[run.format] = (formats[run.format] ?? 0) + 1
  }
  return {
    runs,
    without: {
      toolCalls: count(result.without, "tool-call"),
      leaks,
      text: count(result.without, "text"),
      leakRate: runs === 0 ? 0 : leaks / runs,
      medianMs: median(result.without.map((run) => run.latencyMs)),
    },
    with: {
      toolCalls: count(result.with, "tool-call"),
      recoveries,
      recovered,
      recoveredToText,
      failed,
      text: count(result.with, "text"),
      recoveryRate: recoveries === 0 ? 0 : (recovered + recoveredToText) / recoveries,
      medianMs: median(result.with.map((run) => run.latencyMs)),
      medianAddedMs: median(added),
      maxAddedMs: added.length === 0 ? Number.NaN : Math.max(...added),
    },
    formats,
  }
}

/**
 * The rows of the comparison table, one per outcome, so each column's rows add up to the runs and
 * read as what happened to a turn ("leaked → recovered"); `mark` highlights the leaks the user saw.
 */
function comparisonRows(summary: ProbeSummary, mark: (text: string) => string): string[][] {
  const { runs } = summary
  const w = summary.without
  const r = summary.with
  const ratio = (n: number) => `${n}/${runs} (${formatPercent(n, runs)})`
  const shownWith = runs - r.toolCalls - r.recoveries - r.text
  return [
    ["structured tool call", ratio(w.toolCalls), ratio(r.toolCalls)],
    ["leaked → recovered, tool call", "–", ratio(r.recovered)],
    ["leaked → recovered, prose answer", "–", ratio(r.recoveredToText)],
    ["leaked → explicit error", "–", ratio(r.failed)],
    ["leaked → shown as text", mark(ratio(w.leaks)), shownWith > 0 ? mark(ratio(shownWith)) : ratio(0)],
    ["prose answer", ratio(w.text), ratio(r.text)],
    ["median turn latency", formatMs(w.medianMs), formatMs(r.medianMs)],
  ]
}

const COLUMNS: readonly TableColumn[] = [
  { header: "" },
  { header: "without recovery", align: "right" },
  { header: "with tool-rescue", align: "right" },
]

/** The headline figures: label, value, and a detail (possibly empty). */
function figures(summary: ProbeSummary): [string, string, string][] {
  const { runs } = summary
  const w = summary.without
  const r = summary.with
  const out: [string, string, string][] = [
    ["leak rate without recovery", formatPercent(w.leaks, runs), ""],
    [
      "recovery success rate",
      r.recoveries === 0
        ? "– (no leak to recover)"
        : formatPercent(r.recovered + r.recoveredToText, r.recoveries),
      r.recoveries === 0
        ? ""
        : `(${r.recovered + r.recoveredToText} of ${r.recoveries} retries; ${r.failed} repeated the markup)`,
    ],
    [
      "added latency per recovery",
      Number.isNaN(r.medianAddedMs) ? "–" : `${formatMs(r.medianAddedMs)} median`,
      Number.isNaN(r.maxAddedMs)
        ? ""
        : `(max ${formatMs(r.maxAddedMs)}; from the leak decision to the retry's last byte)`,
    ],
  ]
  const formats = Object.entries(summary.formats)
  if (formats.length > 0) out.push(["leaked formats", formats.map(([f, n]) => `${f} ×${n}`).join(", "), ""])
  return out
}

/**
 * The human report of a probe, with the doctor's verdict.
 *
 * @example
 * ```ts
 * io.stdout.write(renderProbeText(config, summarizeProbe(result), diagnose(result, undefined), style))
 * ```
 */
export function renderProbeText(
  config: ProbeConfig,
  summary: ProbeSummary,
  diagnosis: Diagnosis,
  style: Style,
): string {
  const out: string[] = []
  out.push(
    `${style.bold("tool-rescue probe")}  ${config.baseURL}  model ${config.model}  ` +
      `${summary.runs} prompts × 2 · ${config.stream ? "streaming" : "non-streaming"}\n\n`,
  )
  out.push(formatTable(COLUMNS, comparisonRows(summary, style.red), { header: style.bold }))
  out.push("\n")
  for (const [label, value, detail] of figures(summary)) {
    out.push(`  ${label.padEnd(29)}${style.bold(value)}${detail === "" ? "" : style.dim(`  ${detail}`)}\n`)
  }
  const lines = diagnosisLines(diagnosis, style.cyan)
  const title = diagnosis.verdict === "server" ? style.yellow("doctor") : style.bold("doctor")
  out.push(`\n${title}\n`)
  for (const line of lines) out.push(`  ${line}\n`)
  return out.join("")
}

/**
 * The report of a probe as Markdown, to paste into a bug report for the model's server.
 *
 * @example
 * ```ts
 * io.stdout.write(renderProbeMarkdown(config, summarizeProbe(result), diagnose(result, undefined)))
 * ```
 */
export function renderProbeMarkdown(
  config: ProbeConfig,
  summary: ProbeSummary,
  diagnosis: Diagnosis,
): string {
  const cell = (text: string) => text.trim().replace(/\|/g, "\\|")
  const out = [
    "## Tool calls leaked as text (tool-rescue probe)",
    "",
    `Endpoint \`${config.baseURL}\`, model \`${config.model}\`, ${summary.runs} prompts × 2, ${config.stream ? "streaming" : "non-streaming"}.`,
    "",
    "| | without recovery | with tool-rescue |",
    "| --- | ---: | ---: |",
    ...comparisonRows(summary, (text) => `**${text}**`).map((row) => `| ${row.map(cell).join(" | ")} |`),
    "",
    ...figures(summary).map(
      ([label, value, detail]) => `- ${label}: **${value}**${detail === "" ? "" : ` ${detail}`}`,
    ),
    "",
    "### Doctor",
    "",
    // One list: the verdict and each server's check as items, their steps nested.
    ...diagnosisLines(diagnosis, (text) => `\`${text}\``).map((line) =>
      line.startsWith("  - ") ? line : `- ${line}`,
    ),
    "",
  ]
  return out.join("\n")
}
