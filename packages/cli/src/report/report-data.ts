/**
 * The figures of `tool-rescue report`, gathered record by record in memory bounded by the number of
 * distinct models, formats, tools, outcomes and hours — never by the number of records — and
 * computed once for every rendering (terminal, Markdown, JSON, HTML).
 */
import type { FailedRecordField, PartialFailedRecord } from "@tool-rescue/proxy"

/** What a field the record does not carry reads as. */
export const UNKNOWN = "unknown"

/** One row of the main table: a (model, format, outcome) with its records. Each record is in exactly one row. */
export interface ReportRow {
  readonly model: string
  readonly format: string
  readonly outcome: string
  readonly records: number
}

/** A name and its records. */
export interface Count {
  readonly name: string
  readonly records: number
}

/**
 * Retries and how they ended, estimated from the log: a `retried` record is a retry sent; a
 * `repeated` or `truncated` record of a second (or later) response is a retry that leaked again.
 */
export interface RecoveryFigures {
  readonly retries: number
  readonly failedRetries: number
  /** `retries - failedRetries`. */
  readonly recovered: number
  /** `recovered / retries`, or null without a retry. */
  readonly rate: number | null
}

/** Per model. */
export interface ModelFigures {
  readonly model: string
  readonly records: number
  readonly formats: readonly Count[]
  readonly outcomes: readonly Count[]
  readonly tools: readonly Count[]
  readonly recovery: RecoveryFigures
  /** Requests with tools the proxy's `/metrics` counted for the model (`--metrics`), else null. */
  readonly requestsWithTools: number | null
  /** `records / requestsWithTools`, else null. */
  readonly leakRate: number | null
  /** ISO 8601 time of the first and last record with a time, else null. */
  readonly first: string | null
  readonly last: string | null
}

/** Leaks of one model in one format, per time bucket. */
export interface TimelineSeries {
  readonly model: string
  readonly format: string
  /** One count per bucket, `timeline.buckets` long. */
  readonly counts: readonly number[]
}

/** Leaks over time: `buckets` buckets of `bucketHours` hours from `start`. */
export interface Timeline {
  /** ISO 8601 start of the first bucket, or null when no record has a time. */
  readonly start: string | null
  readonly bucketHours: number
  readonly buckets: number
  readonly series: readonly TimelineSeries[]
}

/** A line that is not a failed-log record. */
export interface MalformedLine {
  readonly file: string
  readonly line: number
  readonly reason: string
}

/** What was read from each file. */
export interface FileFigures {
  readonly file: string
  readonly lines: number
  readonly records: number
  readonly malformed: number
}

/**
 * Everything `report` prints: the JSON of `--json`, the data of the HTML page.
 *
 * @example
 * ```ts
 * const data: ReportData = aggregator.result()
 * console.log(data.records, data.rows.length)
 * ```
 */
export interface ReportData {
  readonly files: readonly FileFigures[]
  /** `--since`, as ISO 8601, or null. */
  readonly since: string | null
  /** Records counted (after `--since`). */
  readonly records: number
  /** Records left out by `--since` (older, or without a time). */
  readonly excluded: number
  readonly malformedLines: number
  /**
   * Records of an older or partial log, counted with their missing fields as "unknown", and the
   * fields they lacked (most often first).
   */
  readonly partialRecords: number
  readonly missingFields: readonly Count[]
  /** The first malformed lines (at most {@link MAX_MALFORMED_SHOWN}). */
  readonly malformed: readonly MalformedLine[]
  readonly rows: readonly ReportRow[]
  readonly models: readonly ModelFigures[]
  readonly formats: readonly Count[]
  readonly tools: readonly Count[]
  readonly outcomes: readonly Count[]
  readonly recovery: RecoveryFigures
  readonly timeline: Timeline
  /** The `--metrics` URL and whether it was read, or null without `--metrics`. */
  readonly metrics: { readonly url: string; readonly error: string | null } | null
}

/** Malformed lines kept for display (all are counted). */
export const MAX_MALFORMED_SHOWN = 50

const HOUR_MS = 3_600_000
/** Bucket widths in hours, smallest first; the first that fits the span in {@link MAX_BUCKETS} wins. */
const BUCKET_HOURS = [1, 2, 3, 6, 12, 24, 48, 168, 336, 720, 2160, 8760] as const
const MAX_BUCKETS = 48

/** Options of {@link createReportAggregator}. */
export interface ReportAggregatorOptions {
  /** Records before this time (ms since the epoch), or without a time, are left out. */
  readonly since?: number
}

/**
 * Gathers records and malformed lines into {@link ReportData}.
 *
 * @example
 * ```ts
 * const aggregator = createReportAggregator()
 * aggregator.file("failed.jsonl")
 * aggregator.record(record)
 * const data = aggregator.result()
 * ```
 */
export interface ReportAggregator {
  /** Starts counting lines of `file`. */
  file(name: string): void
  /** Counts one line read (records and malformed lines call this themselves). */
  line(number: number): void
  /** Counts a record read leniently, with the fields its line lacked. */
  record(record: PartialFailedRecord, missing?: readonly FailedRecordField[]): void
  malformed(line: number, reason: string): void
  readonly records: number
  result(metrics?: MetricsInput): ReportData
}

/** Requests with tools per model from `/metrics`. */
export interface MetricsInput {
  readonly url: string
  readonly requestsWithTools: ReadonlyMap<string, number>
  readonly error: string | null
}

interface ModelState {
  records: number
  readonly formats: Map<string, number>
  readonly outcomes: Map<string, number>
  readonly tools: Map<string, number>
  retries: number
  failedRetries: number
  first: number | undefined
  last: number | undefined
  /** format → hour index → count. */
  readonly hours: Map<string, Map<number, number>>
}

const bump = (map: Map<string, number>, key: string, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by)
}

/** Largest count first, then by name: the order every list of the report uses. */
function counts(map: ReadonlyMap<string, number>): Count[] {
  return [...map]
    .map(([name, records]) => ({ name, records }))
    .sort((a, b) => b.records - a.records || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function recovery(retries: number, failedRetries: number): RecoveryFigures {
  const recovered = Math.max(0, retries - failedRetries)
  return { retries, failedRetries, recovered, rate: retries === 0 ? null : recovered / retries }
}

/** A `repeated` or `truncated` response after the first: a retry that leaked again. */
function isFailedRetry(record: PartialFailedRecord): boolean {
  return (
    (record.outcome === "repeated" || record.outcome === "truncated") &&
    record.rounds !== undefined &&
    record.rounds > 1
  )
}

/**
 * The first of `names` that is a name: absent, `null` and empty all mean the writer did not know
 * it, so they count as {@link UNKNOWN}, never as a row named "".
 */
function named(...names: readonly (string | null | undefined)[]): string {
  for (const name of names) if (name !== undefined && name !== null && name.length > 0) return name
  return UNKNOWN
}

/** A record's dimensions as the report counts them: each a name, {@link UNKNOWN} when absent or empty. */
function dimensions(record: PartialFailedRecord) {
  const [first] = record.markup
  return {
    time: record.time === undefined ? undefined : Date.parse(record.time),
    model: named(record.model),
    // An empty format reads like an absent one: the first markup's, as the reader derives it.
    format: named(record.format, first?.format),
    outcome: named(record.outcome),
    // The leaked tool: the one the first markup names.
    tool: named(first?.toolName),
  }
}

/**
 * A {@link ReportAggregator}.
 *
 * @example
 * ```ts
 * const aggregator = createReportAggregator({ since: Date.parse("2026-01-01") })
 * ```
 */
export function createReportAggregator(options: ReportAggregatorOptions = {}): ReportAggregator {
  const files: { file: string; lines: number; records: number; malformed: number }[] = []
  const models = new Map<string, ModelState>()
  const rows = new Map<string, ReportRow & { records: number }>()
  const malformed: MalformedLine[] = []
  let malformedLines = 0
  let partialRecords = 0
  const missingFields = new Map<string, number>()
  let records = 0
  let excluded = 0
  let minHour = Number.POSITIVE_INFINITY
  let maxHour = Number.NEGATIVE_INFINITY

  const current = () => {
    let file = files.at(-1)
    if (file === undefined) {
      file = { file: "-", lines: 0, records: 0, malformed: 0 }
      files.push(file)
    }
    return file
  }

  const modelState = (model: string): ModelState => {
    let state = models.get(model)
    if (state === undefined) {
      state = {
        records: 0,
        formats: new Map(),
        outcomes: new Map(),
        tools: new Map(),
        retries: 0,
        failedRetries: 0,
        first: undefined,
        last: undefined,
        hours: new Map(),
      }
      models.set(model, state)
    }
    return state
  }

  return {
    file(name) {
      files.push({ file: name, lines: 0, records: 0, malformed: 0 })
    },
    line(number) {
      const file = current()
      file.lines = Math.max(file.lines, number)
    },
    record(failed, missing = []) {
      const record = dimensions(failed)
      if (options.since !== undefined && (record.time === undefined || record.time < options.since)) {
        excluded++
        return
      }
      records++
      current().records++
      if (missing.length > 0) partialRecords++
      for (const field of missing) bump(missingFields, field)
      const state = modelState(record.model)
      state.records++
      bump(state.formats, record.format)
      bump(state.outcomes, record.outcome)
      bump(state.tools, record.tool)
      if (record.outcome === "retried") state.retries++
      if (isFailedRetry(failed)) state.failedRetries++
      const key = JSON.stringify([record.model, record.format, record.outcome])
      const row = rows.get(key)
      if (row === undefined)
        rows.set(key, { model: record.model, format: record.format, outcome: record.outcome, records: 1 })
      else row.records++
      if (record.time !== undefined) {
        state.first = state.first === undefined ? record.time : Math.min(state.first, record.time)
        state.last = state.last === undefined ? record.time : Math.max(state.last, record.time)
        const hour = Math.floor(record.time / HOUR_MS)
        minHour = Math.min(minHour, hour)
        maxHour = Math.max(maxHour, hour)
        let hours = state.hours.get(record.format)
        if (hours === undefined) {
          hours = new Map()
          state.hours.set(record.format, hours)
        }
        hours.set(hour, (hours.get(hour) ?? 0) + 1)
      }
    },
    malformed(line, reason) {
      malformedLines++
      const file = current()
      file.malformed++
      if (malformed.length < MAX_MALFORMED_SHOWN) malformed.push({ file: file.file, line, reason })
    },
    get records() {
      return records
    },
    result(metrics) {
      const modelList = [...models].sort(
        ([a, x], [b, y]) => y.records - x.records || (a < b ? -1 : a > b ? 1 : 0),
      )
      const allFormats = new Map<string, number>()
      const allTools = new Map<string, number>()
      const allOutcomes = new Map<string, number>()
      let retries = 0
      let failedRetries = 0
      for (const [, state] of modelList) {
        for (const [name, n] of state.formats) bump(allFormats, name, n)
        for (const [name, n] of state.tools) bump(allTools, name, n)
        for (const [name, n] of state.outcomes) bump(allOutcomes, name, n)
        retries += state.retries
        failedRetries += state.failedRetries
      }
      const timeline = buildTimeline(modelList, minHour, maxHour)
      return {
        files: files.map((file) => ({ ...file })),
        since: options.since === undefined ? null : new Date(options.since).toISOString(),
        records,
        excluded,
        malformedLines,
        malformed: [...malformed],
        partialRecords,
        missingFields: counts(missingFields),
        rows: [...rows.values()]
          .map((row) => ({ ...row }))
          .sort(
            (a, b) =>
              compare(a.model, b.model) ||
              b.records - a.records ||
              compare(a.format, b.format) ||
              compare(a.outcome, b.outcome),
          ),
        models: modelList.map(([model, state]) => {
          const requests = metrics?.requestsWithTools.get(model)
          return {
            model,
            records: state.records,
            formats: counts(state.formats),
            outcomes: counts(state.outcomes),
            tools: counts(state.tools),
            recovery: recovery(state.retries, state.failedRetries),
            requestsWithTools: requests ?? null,
            leakRate: requests === undefined || requests === 0 ? null : state.records / requests,
            first: state.first === undefined ? null : new Date(state.first).toISOString(),
            last: state.last === undefined ? null : new Date(state.last).toISOString(),
          }
        }),
        formats: counts(allFormats),
        tools: counts(allTools),
        outcomes: counts(allOutcomes),
        recovery: recovery(retries, failedRetries),
        timeline,
        metrics: metrics === undefined ? null : { url: metrics.url, error: metrics.error },
      }
    },
  }
}

/**
 * Leaks of `model` per time bucket, all formats together.
 *
 * @example
 * ```ts
 * modelTotals(data.timeline, "qwen3-coder") // [0, 3, 1, …], one count per bucket
 * ```
 */
export function modelTotals(timeline: Timeline, model: string): number[] {
  const sums = new Array<number>(timeline.buckets).fill(0)
  for (const series of timeline.series) {
    if (series.model !== model) continue
    for (let i = 0; i < series.counts.length; i++) sums[i] = (sums[i] ?? 0) + (series.counts[i] ?? 0)
  }
  return sums
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function buildTimeline(
  models: readonly (readonly [string, ModelState])[],
  minHour: number,
  maxHour: number,
): Timeline {
  if (!Number.isFinite(minHour)) return { start: null, bucketHours: 1, buckets: 0, series: [] }
  const span = maxHour - minHour + 1
  const bucketHours = BUCKET_HOURS.find((hours) => Math.ceil(span / hours) <= MAX_BUCKETS) ?? 8760
  // Buckets start on a multiple of their width (whole days for 24 h), so the axis reads naturally.
  const start = Math.floor(minHour / bucketHours) * bucketHours
  const buckets = Math.floor((maxHour - start) / bucketHours) + 1
  const series: TimelineSeries[] = []
  for (const [model, state] of models) {
    for (const { name: format } of counts(state.formats)) {
      const hours = state.hours.get(format)
      if (hours === undefined) continue
      const values = new Array<number>(buckets).fill(0)
      for (const [hour, n] of hours) {
        const index = Math.floor((hour - start) / bucketHours)
        values[index] = (values[index] ?? 0) + n
      }
      series.push({ model, format, counts: values })
    }
  }
  return { start: new Date(start * HOUR_MS).toISOString(), bucketHours, buckets, series }
}
