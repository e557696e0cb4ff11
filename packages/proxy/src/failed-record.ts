/**
 * The failed log's record: one JSON line per malformed response the proxy withheld, what
 * `createFailedLog` writes and `tool-rescue scan` / `tool-rescue report` read. Platform-neutral
 * (no Node built-in), so a reader anywhere parses it with {@link parseFailedRecord}.
 */
import type { FailedOutcome, FailedResponse } from "@tool-rescue/recovery"
import type { ProtocolName } from "./protocol.ts"

/**
 * One line of the failed log: the library's {@link FailedResponse} (round, rounds, outcome,
 * format, tools, text, reasoning, markup) with where and when it happened. It holds only what the
 * model wrote and the names of the offered tools — never a prompt, a request header or a
 * credential.
 *
 * Fields: `time` (ISO 8601), `model` (the request's `model`, `null` when it named none),
 * `protocol` (`chat`, `responses`, `messages`), `route` (the recovered route, e.g.
 * `/v1/chat/completions`), `format` (the first markup's), `tools` (offered tool names),
 * `outcome` (`retried`, `repeated`, `truncated`, `not-offered`), `round` (0 = the client's own
 * request), `rounds` (responses this request got so far, this one included),
 * `recoveriesBefore`, `text`, `reasoning`, `markup`.
 *
 * @example
 * ```ts
 * import type { FailedRecord } from "@tool-rescue/proxy"
 *
 * const leakedIn = (record: FailedRecord) => `${record.model ?? "?"} ${record.format} ${record.outcome}`
 * ```
 */
export interface FailedRecord extends Omit<FailedResponse, "model"> {
  /** When the response was judged, ISO 8601. */
  readonly time: string
  /** The model the request named, or `null`. */
  readonly model: string | null
  readonly protocol: ProtocolName
  /** The recovered route's path. */
  readonly route: string
}

/**
 * A failed-log line as {@link parseFailedRecord} read it: the record, or why the line is not one.
 *
 * @example
 * ```ts
 * import type { ParsedFailedRecord } from "@tool-rescue/proxy"
 *
 * const ok = (parsed: ParsedFailedRecord) => parsed.kind === "record"
 * ```
 */
export type ParsedFailedRecord =
  | { readonly kind: "record"; readonly record: FailedRecord }
  | { readonly kind: "invalid"; readonly reason: string }

const OUTCOMES: ReadonlySet<string> = new Set<FailedOutcome>([
  "retried",
  "repeated",
  "truncated",
  "not-offered",
])
const PROTOCOLS: ReadonlySet<string> = new Set<ProtocolName>(["chat", "responses", "messages"])

/**
 * Reads one line of a failed log (a JSON text, or the value `JSON.parse` made of it). A line that
 * is not JSON, or lacks a field of {@link FailedRecord}, is `invalid` with the reason (the first
 * field that is wrong); unknown fields are kept, so later versions' lines still read.
 *
 * @example
 * ```ts
 * import { parseFailedRecord } from "@tool-rescue/proxy"
 *
 * const parsed = parseFailedRecord('{"time":"2026-01-01T00:00:00.000Z"}')
 * parsed.kind // "invalid" (reason: "no model")
 * ```
 */
export function parseFailedRecord(line: string | unknown): ParsedFailedRecord {
  let value: unknown = line
  if (typeof line === "string") {
    try {
      value = JSON.parse(line)
    } catch {
      return invalid("not JSON")
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return invalid("not a JSON object")
  const r = value as Record<string, unknown>
  if (typeof r.time !== "string") return invalid("no time")
  if (r.model !== null && typeof r.model !== "string") return invalid("no model")
  if (typeof r.protocol !== "string" || !PROTOCOLS.has(r.protocol)) return invalid("no protocol")
  if (typeof r.route !== "string") return invalid("no route")
  if (typeof r.format !== "string") return invalid("no format")
  if (!Array.isArray(r.tools) || !r.tools.every((tool) => typeof tool === "string"))
    return invalid("no tools")
  if (typeof r.outcome !== "string" || !OUTCOMES.has(r.outcome)) return invalid("no outcome")
  if (!isCount(r.round)) return invalid("no round")
  if (!isCount(r.rounds)) return invalid("no rounds")
  if (typeof r.text !== "string") return invalid("no text")
  if (!Array.isArray(r.markup)) return invalid("no markup")
  const record: FailedRecord = {
    ...(r as object),
    time: r.time,
    model: r.model,
    protocol: r.protocol as ProtocolName,
    route: r.route,
    format: r.format as FailedResponse["format"],
    tools: r.tools as string[],
    outcome: r.outcome as FailedOutcome,
    round: r.round,
    rounds: r.rounds,
    recoveriesBefore: isCount(r.recoveriesBefore) ? r.recoveriesBefore : 0,
    text: r.text,
    reasoning: typeof r.reasoning === "string" ? r.reasoning : "",
    markup: r.markup as FailedResponse["markup"],
  }
  return { kind: "record", record }
}

function invalid(reason: string): ParsedFailedRecord {
  return { kind: "invalid", reason }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0
}
