import type { FormatId } from "@tool-rescue/detector"
import type { Style } from "../style.ts"
import { formatTable } from "../table.ts"
import { excerpt, formatBytes, formatCount, plural } from "../text.ts"
import type { NotRecoverableReason } from "./response-scan.ts"
import type { ScanInputResult } from "./scan-input.ts"
import type { FindingCounts, PlacedFinding, RecordPlace, ScanReport } from "./scan-session.ts"

const REASONS: Readonly<Record<NotRecoverableReason, string>> = {
  "structured-call": "in a response that also made a structured call",
  "provider-error": "in a response that ended in a provider error",
  unnamed: "name no tool",
  "not-offered": "name a tool that was not offered",
  "in-reasoning-answer-follows": "are inside reasoning that an answer follows (policy)",
  "in-reasoning": "are inside reasoning (policy: reasoning ignore)",
  "no-envelope": "have no envelope marker (policy: evidence envelope)",
  "no-structure": "have neither an envelope marker nor call structure (policy)",
}

const SHORT_REASONS: Readonly<Record<NotRecoverableReason, string>> = {
  "structured-call": "structured call made",
  "provider-error": "provider error",
  unnamed: "no tool name",
  "not-offered": "tool not offered",
  "in-reasoning-answer-follows": "reasoning, answered",
  "in-reasoning": "in reasoning",
  "no-envelope": "no envelope",
  "no-structure": "no envelope/structure",
}

/** `line 12`, `[3]` (a place in a JSON document), or `document`. */
function whereLabel(place: Pick<RecordPlace, "line" | "path">): string {
  return place.line !== undefined ? `line ${place.line}` : place.path || "document"
}

/** {@link whereLabel}, with the id when there is one. */
export function placeLabel(place: RecordPlace): string {
  const where = whereLabel(place)
  // A short id (a corpus sample id, a request id) helps find the record; long ones clutter.
  return place.id !== undefined && place.id.length <= 16 ? `${where} ${excerpt(place.id, 16)}` : where
}

/**
 * The human report of a scan.
 *
 * @example
 * ```ts
 * io.stdout.write(renderScanText("recorded.jsonl", result, style))
 * ```
 */
export function renderScanText(input: string, result: ScanInputResult, style: Style): string {
  const { report } = result
  const out: string[] = []
  out.push(`${style.bold("tool-rescue scan")}  ${input} ${style.dim(`(${result.format})`)}\n`)
  out.push(
    `  ${plural(result.lines, "line")} · ${formatBytes(result.bytes)} · ${plural(report.responses, "response")} · ` +
      `${formatCount(report.responsesWithMarkup)} with tool-call markup · ` +
      `${formatCount(report.responsesWithLeaks)} tool-rescue would retry\n`,
  )
  if (report.markup > 0) {
    out.push("\n")
    out.push(countTable("format", [...report.byFormat], (format: FormatId) => format, style))
    out.push("\n")
    out.push(
      countTable(
        "tool",
        [...report.byTool],
        (tool: string) => (tool === "" ? "(no name)" : excerpt(tool, 40)),
        style,
      ),
    )
    const reasons = [...report.notRecoverable].filter(([, n]) => n > 0)
    if (reasons.length > 0) {
      out.push(`\n  ${style.bold("not recoverable")}\n`)
      for (const [reason, n] of reasons) out.push(`  ${formatCount(n)} ${REASONS[reason]}\n`)
    }
  }
  if (report.leakExamples.length > 0) {
    out.push(
      `\n  ${style.bold(style.red("leaks"))} ${style.dim(shownOf(report.leakExamples.length, report.recoverable))}\n`,
    )
    out.push(findingTable(report.leakExamples, style))
  }
  const others = report.markup - report.recoverable
  if (report.otherExamples.length > 0) {
    out.push(
      `\n  ${style.bold("other markup (left as text)")} ${style.dim(shownOf(report.otherExamples.length, others))}\n`,
    )
    out.push(findingTable(report.otherExamples, style))
  }
  if (report.skipped > 0) {
    out.push(`\n  ${style.bold(style.yellow(`skipped ${plural(report.skipped, "record")}`))}\n`)
    for (const skipped of report.skippedExamples) {
      out.push(`  ${whereLabel(skipped)}: ${excerpt(skipped.reason, 160)}\n`)
    }
    if (report.skipped > report.skippedExamples.length) {
      out.push(style.dim(`  … and ${formatCount(report.skipped - report.skippedExamples.length)} more\n`))
    }
  }
  if (report.responsesWithoutTools > 0) {
    out.push(
      `\n  ${style.yellow("note")}: ${plural(report.responsesWithoutTools, "response")} had no offered tools ` +
        "(none recorded, no --tools): markup in them cannot be recoverable\n",
    )
  }
  out.push("\n")
  if (report.recoverable > 0) {
    out.push(
      `${style.red("✗")} ${plural(report.recoverable, "recoverable leak")} in ${plural(report.responsesWithLeaks, "response")}: ` +
        "tool-rescue would retry these\n",
    )
  } else {
    out.push(`${style.green("✓")} no recoverable leaks\n`)
  }
  return out.join("")
}

function countTable<K>(
  title: string,
  entries: [K, FindingCounts][],
  label: (key: K) => string,
  style: Style,
): string {
  entries.sort((a, b) => b[1].recoverable - a[1].recoverable || b[1].markup - a[1].markup)
  return formatTable(
    [{ header: title }, { header: "markup", align: "right" }, { header: "recoverable", align: "right" }],
    entries.map(([key, counts]) => [label(key), formatCount(counts.markup), formatCount(counts.recoverable)]),
    { header: style.bold },
  )
}

function findingTable(findings: readonly PlacedFinding[], style: Style): string {
  return formatTable(
    [
      { header: "where" },
      { header: "format" },
      { header: "tool" },
      { header: "status" },
      { header: "excerpt" },
    ],
    findings.map((finding) => [
      placeLabel(finding.place),
      finding.markup.format,
      finding.markup.toolName === undefined ? "–" : excerpt(finding.markup.toolName, 24),
      finding.recoverable
        ? style.red(finding.channel === "reasoning" ? "leak (reasoning)" : "leak")
        : style.dim(SHORT_REASONS[finding.reason ?? "no-structure"]),
      finding.text === undefined ? style.dim("(not kept)") : style.dim(excerpt(finding.text, 64)),
    ]),
    { header: style.bold },
  )
}

function shownOf(shown: number, total: number): string {
  return shown < total ? `(first ${shown} of ${formatCount(total)})` : `(${formatCount(total)})`
}

/** The `--json` report (one object; maps become objects). */
export interface ScanJson {
  readonly input: string
  readonly format: string
  readonly lines: number
  readonly bytes: number
  readonly responses: number
  readonly responsesWithMarkup: number
  readonly responsesWithLeaks: number
  readonly responsesWithoutTools: number
  readonly markup: number
  readonly recoverable: number
  readonly notRecoverable: Record<string, number>
  readonly byFormat: Record<string, FindingCounts>
  readonly byTool: Record<string, FindingCounts>
  readonly findings: readonly unknown[]
  readonly findingsOmitted: number
  readonly skipped: number
  readonly skippedRecords: readonly { line: number | null; path: string | null; reason: string }[]
}

/**
 * The machine report of a scan.
 *
 * @example
 * ```ts
 * io.stdout.write(`${JSON.stringify(scanJson("recorded.jsonl", result), null, 2)}\n`)
 * ```
 */
export function scanJson(input: string, result: ScanInputResult): ScanJson {
  const report: ScanReport = result.report
  const findings = [...report.leakExamples, ...report.otherExamples].map((finding) => ({
    line: finding.place.line ?? null,
    path: finding.place.path ?? null,
    id: finding.place.id ?? null,
    channel: finding.channel,
    format: finding.markup.format,
    tool: finding.markup.toolName ?? null,
    offered: finding.markup.offered,
    recoverable: finding.recoverable,
    reason: finding.reason ?? null,
    opening: finding.markup.opening,
    closing: finding.markup.closing,
    structured: finding.markup.structured,
    complete: finding.markup.complete,
    inReasoning: finding.markup.inReasoning,
    excerpt: finding.text ?? null,
  }))
  return {
    input,
    format: result.format,
    lines: result.lines,
    bytes: result.bytes,
    responses: report.responses,
    responsesWithMarkup: report.responsesWithMarkup,
    responsesWithLeaks: report.responsesWithLeaks,
    responsesWithoutTools: report.responsesWithoutTools,
    markup: report.markup,
    recoverable: report.recoverable,
    notRecoverable: Object.fromEntries(report.notRecoverable),
    byFormat: Object.fromEntries(report.byFormat),
    byTool: Object.fromEntries(report.byTool),
    findings,
    findingsOmitted: report.markup - findings.length,
    skipped: report.skipped,
    skippedRecords: report.skippedExamples.map((s) => ({
      line: s.line ?? null,
      path: s.path ?? null,
      reason: s.reason,
    })),
  }
}
