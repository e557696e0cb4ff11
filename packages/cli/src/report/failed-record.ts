/**
 * One line of the proxy's failed log (`tool-rescue serve --failed-log`, `createFailedLog` in
 * `@tool-rescue/proxy`), read from `unknown`. Two generations of the log are read alike: the first
 * wrote `{ time, round, text, reasoning, markup }` (the library's `FailedResponse` and a time);
 * later records add `model`, `protocol`, `route`, `format`, `tools`, `outcome` and `rounds`. A
 * field a record does not carry reads as {@link UNKNOWN}; a field it carries with the wrong type
 * makes the line malformed (a log is written by one program: a wrong type means a damaged line,
 * not a dialect).
 */
import { isRecord } from "@tool-rescue/wire"

/** What a field the record does not carry reads as. */
export const UNKNOWN = "unknown"

/**
 * A failed-log record, every dimension a string (`"unknown"` when absent).
 *
 * @example
 * ```ts
 * const record = readFailedRecord(JSON.parse(line))
 * if (typeof record !== "string") console.log(record.model, record.format, record.outcome)
 * ```
 */
export interface FailedRecord {
  /** Milliseconds since the epoch, or undefined when the record has no time. */
  readonly time: number | undefined
  readonly model: string
  readonly protocol: string
  readonly route: string
  /** The format of the first markup (the record's `format`, else its first `markup[].format`). */
  readonly format: string
  /** The tool the first markup names (`markup[0].toolName`), the leaked tool. */
  readonly tool: string
  /** What became of the response: `retried`, `repeated`, `truncated`, `not-offered`, … */
  readonly outcome: string
  /** Responses the model call had got, this one included; undefined when not recorded. */
  readonly rounds: number | undefined
  /** Names of the offered tools (empty when not recorded). */
  readonly tools: readonly string[]
}

/** A field's value, or the reason it is malformed. */
type Field<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string }

const ok = <T>(value: T): Field<T> => ({ ok: true, value })
const bad = (reason: string): Field<never> => ({ ok: false, reason })

function optionalString(record: Record<string, unknown>, key: string): Field<string | undefined> {
  const value = record[key]
  if (value === undefined || value === null) return ok(undefined)
  if (typeof value !== "string") return bad(`"${key}" is not a string`)
  return ok(value.length === 0 ? undefined : value)
}

function optionalCount(record: Record<string, unknown>, key: string): Field<number | undefined> {
  const value = record[key]
  if (value === undefined || value === null) return ok(undefined)
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    return bad(`"${key}" is not a count`)
  return ok(value)
}

function readTime(record: Record<string, unknown>): Field<number | undefined> {
  const time = optionalString(record, "time")
  if (!time.ok) return time
  if (time.value === undefined) return ok(undefined)
  const ms = Date.parse(time.value)
  return Number.isNaN(ms) ? bad(`"time" is not an ISO 8601 date`) : ok(ms)
}

function readTools(record: Record<string, unknown>): Field<readonly string[]> {
  const tools = record.tools
  if (tools === undefined || tools === null) return ok([])
  if (!Array.isArray(tools) || !tools.every((tool) => typeof tool === "string"))
    return bad(`"tools" is not a list of names`)
  return ok(tools as string[])
}

/** The first markup's format and tool name, when the record has a `markup` list. */
function firstMarkup(record: Record<string, unknown>): Field<{ format?: string; tool?: string }> {
  const markup = record.markup
  if (markup === undefined || markup === null) return ok({})
  if (!Array.isArray(markup)) return bad(`"markup" is not a list`)
  const first: unknown = markup[0]
  if (first === undefined) return ok({})
  if (!isRecord(first)) return bad(`"markup[0]" is not an object`)
  const found: { format?: string; tool?: string } = {}
  if (typeof first.format === "string" && first.format.length > 0) found.format = first.format
  if (typeof first.toolName === "string" && first.toolName.length > 0) found.tool = first.toolName
  return ok(found)
}

/**
 * Reads one parsed line of a failed log. Returns the record, or a short reason when the line is
 * not a failed-log record (not an object, no `text`, a field of the wrong type).
 *
 * @example
 * ```ts
 * readFailedRecord({ time: "2026-01-02T03:04:05Z", round: 0, text: "<tool_call>…", markup: [] }).model // "unknown"
 * readFailedRecord([1, 2]) // "not a JSON object"
 * ```
 */
export function readFailedRecord(value: unknown): FailedRecord | string {
  if (!isRecord(value)) return "not a JSON object"
  if (typeof value.text !== "string") return `no "text" (not a failed-log record)`
  const time = readTime(value)
  if (!time.ok) return time.reason
  const model = optionalString(value, "model")
  if (!model.ok) return model.reason
  const protocol = optionalString(value, "protocol")
  if (!protocol.ok) return protocol.reason
  const route = optionalString(value, "route")
  if (!route.ok) return route.reason
  const format = optionalString(value, "format")
  if (!format.ok) return format.reason
  const outcome = optionalString(value, "outcome")
  if (!outcome.ok) return outcome.reason
  const rounds = optionalCount(value, "rounds")
  if (!rounds.ok) return rounds.reason
  const round = optionalCount(value, "round")
  if (!round.ok) return round.reason
  const tools = readTools(value)
  if (!tools.ok) return tools.reason
  const markup = firstMarkup(value)
  if (!markup.ok) return markup.reason
  return {
    time: time.value,
    model: model.value ?? UNKNOWN,
    protocol: protocol.value ?? UNKNOWN,
    route: route.value ?? UNKNOWN,
    format: format.value ?? markup.value.format ?? UNKNOWN,
    tool: markup.value.tool ?? UNKNOWN,
    outcome: outcome.value ?? UNKNOWN,
    // The first log generation has only `round` (0 = the original request): rounds is round + 1.
    rounds: rounds.value ?? (round.value === undefined ? undefined : round.value + 1),
    tools: tools.value,
  }
}
