/** What a live run reports per adapter, and its three renderings (terminal, Markdown, JSON). */
import type { AdapterId, TaskId } from "./live-turn.ts"

/** How one turn ended. */
export interface TaskResult {
  readonly task: TaskId
  readonly outcome: "answered" | "recovery-error" | "failed"
  /** The final answer, the recovery error's message, or the failure's. */
  readonly text: string
  /** The `ToolCallRecoveryError` code, for `recovery-error`. */
  readonly code?: string
  /** The tools the turn ran, in order (denied writes included). */
  readonly tools: readonly string[]
  readonly ms: number
}

/** One adapter's numbers over every task. */
export interface AdapterReport {
  readonly adapter: AdapterId
  /** User turns run (one per task). */
  readonly turns: number
  /**
   * `markup-detected` events that are `recoverable` (a retry is spent on them): tool calls leaked
   * as text that tool-rescue retried; the agent CLIs', the same from `tool-rescue serve`'s
   * `/metrics`.
   */
  readonly leaks: number
  /** `recovery-succeeded` events. */
  readonly recoveries: number
  /** Explicit `ToolCallRecoveryError`s, by code. */
  readonly errors: Readonly<Record<string, number>>
  /** Turns that ended with any other error (connection, HTTP, framework). */
  readonly failures: number
  /** Writes the gate denied (none of them ran). */
  readonly deniedWrites: number
  /** Tool executions by tool name (denied writes included). */
  readonly toolRuns: Readonly<Record<string, number>>
  /** Denied writes whose file exists after the run: must stay empty. */
  readonly violations: readonly string[]
  readonly ms: number
  readonly tasks: readonly TaskResult[]
}

/** A whole live run. */
export interface LiveReport {
  readonly baseURL: string
  readonly model: string
  /** The disposable directory (removed unless kept). */
  readonly root: string
  readonly adapters: readonly AdapterReport[]
}

const columns = [
  "adapter",
  "turns",
  "leaks",
  "recoveries",
  "errors",
  "failed",
  "denied writes",
  "tool runs",
  "time",
] as const

function cells(report: AdapterReport): string[] {
  const errors = Object.entries(report.errors)
  const toolRuns = Object.values(report.toolRuns).reduce((sum, n) => sum + n, 0)
  return [
    report.adapter,
    String(report.turns),
    String(report.leaks),
    String(report.recoveries),
    errors.length === 0 ? "0" : errors.map(([code, n]) => `${n} ${code}`).join(", "),
    String(report.failures),
    String(report.deniedWrites),
    String(toolRuns),
    `${(report.ms / 1000).toFixed(1)}s`,
  ]
}

/** Problems worth a line under the table: failed turns and gate violations. */
function notes(report: LiveReport): string[] {
  return report.adapters.flatMap((adapter) => [
    ...adapter.tasks
      .filter((task) => task.outcome === "failed")
      .map((task) => `${adapter.adapter} ${task.task}: ${task.text}`),
    ...adapter.violations.map((path) => `${adapter.adapter}: a denied write exists: ${path}`),
  ])
}

/** Lines after a blank one, or none. */
const spaced = (lines: readonly string[]): string[] => (lines.length === 0 ? [] : ["", ...lines])

/**
 * The terminal table.
 *
 * @example
 * ```ts
 * console.log(formatTable(report))
 * ```
 */
export function formatTable(report: LiveReport): string {
  const rows = [[...columns], ...report.adapters.map(cells)]
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  const line = (row: readonly string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  return [
    `${report.model} at ${report.baseURL}`,
    "",
    line(rows[0]!),
    ...rows.slice(1).map(line),
    ...spaced(notes(report)),
  ].join("\n")
}

/**
 * The Markdown table (for an issue or a results file).
 *
 * @example
 * ```ts
 * process.stdout.write(formatMarkdown(report))
 * ```
 */
export function formatMarkdown(report: LiveReport): string {
  const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`
  return [
    `\`${report.model}\` at \`${report.baseURL}\``,
    "",
    row(columns),
    row(columns.map((_, i) => (i === 0 ? "---" : "---:"))),
    ...report.adapters.map((adapter) => row(cells(adapter))),
    ...spaced(notes(report).map((note) => `- ${note}`)),
    "",
  ].join("\n")
}

/**
 * The whole report as JSON (every task's outcome included).
 *
 * @example
 * ```ts
 * JSON.parse(formatJson(report)).adapters[0].leaks
 * ```
 */
export function formatJson(report: LiveReport): string {
  return `${JSON.stringify(report, null, 2)}\n`
}

/** The run passed: no failed turn and no denied write that ran. Recovery errors are results, not failures. */
export function passed(report: LiveReport): boolean {
  return report.adapters.every((adapter) => adapter.failures === 0 && adapter.violations.length === 0)
}
