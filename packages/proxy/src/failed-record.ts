/**
 * The failed log's record: one JSON line per malformed response the proxy withheld, what
 * `createFailedLog` writes and `tool-rescue scan` / `tool-rescue report` read. Platform-neutral
 * (no Node built-in), so a reader anywhere parses it with {@link parseFailedRecord}.
 */
import type { FailedOutcome, FailedResponse } from "@tool-rescue/recovery"
import { isRecord } from "@tool-rescue/wire"
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

/** The fields of a {@link FailedRecord} a line may lack when read leniently. */
export type FailedRecordField = Exclude<keyof FailedRecord, "text" | "reasoning" | "recoveriesBefore">

/**
 * A record read leniently: an older, newer or partial line. Only `text` is sure; `reasoning`,
 * `recoveriesBefore` and `markup` default to empty; any other field may be absent; `outcome` and
 * `protocol` may be values this version does not know (a newer proxy's).
 *
 * @example
 * ```ts
 * import type { PartialFailedRecord } from "@tool-rescue/proxy"
 *
 * const model = (record: PartialFailedRecord) => record.model ?? "unknown"
 * ```
 */
export type PartialFailedRecord = Partial<
  Pick<FailedRecord, Exclude<FailedRecordField, "markup" | "outcome" | "protocol">>
> &
  Pick<FailedRecord, "text" | "reasoning" | "recoveriesBefore" | "markup"> & {
    // `string & {}`: any string, the known ones still offered by completion.
    readonly outcome?: FailedOutcome | (string & {})
    readonly protocol?: ProtocolName | (string & {})
  }

/**
 * A failed-log line as `parseFailedRecord(line, { lenient: true })` read it: the record and the
 * fields it lacked (to tell the reader what is unknown), or why the line is not one.
 *
 * @example
 * ```ts
 * import type { ParsedPartialFailedRecord } from "@tool-rescue/proxy"
 *
 * const lacks = (parsed: ParsedPartialFailedRecord) => (parsed.kind === "record" ? parsed.missing : [])
 * ```
 */
export type ParsedPartialFailedRecord =
  | {
      readonly kind: "record"
      readonly record: PartialFailedRecord
      /** The fields the line did not carry and that could not be derived, in record order. */
      readonly missing: readonly FailedRecordField[]
    }
  | { readonly kind: "invalid"; readonly reason: string }

/**
 * Options of {@link parseFailedRecord}.
 *
 * @example
 * ```ts
 * import { type FailedRecordOptions, parseFailedRecord } from "@tool-rescue/proxy"
 *
 * const options: FailedRecordOptions = { lenient: true }
 * parseFailedRecord('{"text":"<tool_call>…"}', options)
 * ```
 */
export interface FailedRecordOptions {
  /**
   * Read older or partial lines: a field the line lacks is left out (and named in `missing`)
   * rather than making the line invalid. Only `text` is required. An `outcome` or `protocol` this
   * version does not know (a newer proxy's) is kept as written, for the reader to count under its
   * own name. A field present with the wrong type still makes the line invalid: a log is written
   * by one program, so a wrong type means a damaged line, not a dialect.
   */
  readonly lenient?: boolean
}

/**
 * The values this version writes, keyed by the types the writer uses: an outcome added to
 * recovery's `FailedOutcome` (or a protocol to `ProtocolName`) and not here is a type error, so
 * the proxy never writes a line its own strict reader rejects.
 */
const OUTCOMES: Readonly<Record<FailedOutcome, true>> = {
  retried: true,
  repeated: true,
  truncated: true,
  "not-offered": true,
}
const PROTOCOLS: Readonly<Record<ProtocolName, true>> = { chat: true, responses: true, messages: true }

/**
 * Whether a present field's value is right, and what it must be when it is not; `known`: the
 * values a strict read accepts (a lenient one takes any string, a newer version's).
 */
interface FieldRule {
  readonly valid: (value: unknown) => boolean
  readonly expected: string
  readonly known?: Readonly<Record<string, true>>
}

/** `a, b or c`. */
function oneOf(known: Readonly<Record<string, true>>): string {
  const names = Object.keys(known)
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`
}

const isString = (value: unknown): value is string => typeof value === "string"
const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/**
 * The record's fields as data, in the order the writer writes them. `null` is a value only for
 * `model` (a request that named none); for the others it reads as absent.
 */
const RULES: ReadonlyMap<FailedRecordField, FieldRule> = new Map<FailedRecordField, FieldRule>([
  ["time", { valid: (v) => isString(v) && !Number.isNaN(Date.parse(v)), expected: "an ISO 8601 date" }],
  ["model", { valid: (v) => v === null || isString(v), expected: "a string or null" }],
  ["protocol", { valid: isString, expected: "a string", known: PROTOCOLS }],
  ["route", { valid: isString, expected: "a string" }],
  ["format", { valid: isString, expected: "a string" }],
  ["tools", { valid: (v) => Array.isArray(v) && v.every(isString), expected: "a list of names" }],
  ["outcome", { valid: isString, expected: "a string", known: OUTCOMES }],
  ["round", { valid: isCount, expected: "a count" }],
  ["rounds", { valid: isCount, expected: "a count" }],
  ["markup", { valid: isMarkupList, expected: "a list of markup objects" }],
])

/** Markup as the writer writes it: objects with a string `format` (a tool name when one was read). */
function isMarkupList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (markup) =>
        isRecord(markup) &&
        isString(markup.format) &&
        (markup.toolName === undefined || isString(markup.toolName)),
    )
  )
}

/**
 * Reads one line of a failed log (a JSON text, or the value `JSON.parse` made of it) — the one
 * reader of the format {@link createFailedLog} writes, for the proxy's tests and the CLI's
 * `report` alike. A line that is not JSON, lacks a field of {@link FailedRecord}, or has one of
 * the wrong type is `invalid` with the reason (the first field that is wrong); unknown fields
 * are kept, so later versions' lines still read. With `{ lenient: true }` a line of an older log
 * (the first wrote only `time`, `round`, `text`, `reasoning`, `markup`) or a partial one reads
 * too: absent fields are left out and listed in `missing`; `rounds` is derived from `round`
 * (`round + 1`) and `format` from the first markup's when the line lacks them.
 *
 * @example
 * ```ts
 * import { parseFailedRecord } from "@tool-rescue/proxy"
 *
 * parseFailedRecord('{"time":"2026-01-01T00:00:00.000Z","text":"x"}').kind // "invalid" ("model" is missing)
 * const old = parseFailedRecord('{"round":0,"text":"x","markup":[]}', { lenient: true })
 * old.kind === "record" && old.record.rounds // 1; old.missing: ["time", "model", …]
 * ```
 */
export function parseFailedRecord(line: unknown): ParsedFailedRecord
export function parseFailedRecord(
  line: unknown,
  options: FailedRecordOptions & { readonly lenient: true },
): ParsedPartialFailedRecord
export function parseFailedRecord(
  line: unknown,
  options?: FailedRecordOptions,
): ParsedFailedRecord | ParsedPartialFailedRecord
export function parseFailedRecord(
  line: unknown,
  options: FailedRecordOptions = {},
): ParsedFailedRecord | ParsedPartialFailedRecord {
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
  // Without its text a line is something else, whatever the mode.
  if (!isString(r.text)) return invalid(`no "text" (not a failed-log record)`)
  if (r.reasoning !== undefined && r.reasoning !== null && !isString(r.reasoning))
    return invalid(`"reasoning" is not a string`)
  if (r.recoveriesBefore !== undefined && r.recoveriesBefore !== null && !isCount(r.recoveriesBefore))
    return invalid(`"recoveriesBefore" is not a count`)
  const fields: Partial<Record<FailedRecordField, unknown>> = {}
  const missing: FailedRecordField[] = []
  for (const [name, rule] of RULES) {
    const field = r[name]
    if (field === undefined || (field === null && name !== "model")) {
      missing.push(name)
      continue
    }
    if (!rule.valid(field)) return invalid(`"${name}" is not ${rule.expected}`)
    const { known } = rule
    if (known !== undefined && options.lenient !== true && !Object.hasOwn(known, field as string))
      return invalid(`"${name}" is not ${oneOf(known)}`)
    fields[name] = field
  }
  // Only a lenient read fills in what an older line implies; a strict read wants it written.
  if (options.lenient === true) derive(fields)
  const lacking = missing.filter((name) => fields[name] === undefined)
  const record: Record<string, unknown> = {
    ...r,
    ...fields,
    reasoning: isString(r.reasoning) ? r.reasoning : "",
    recoveriesBefore: isCount(r.recoveriesBefore) ? r.recoveriesBefore : 0,
    markup: fields.markup ?? [],
  }
  for (const name of lacking) if (name !== "markup") delete record[name]
  if (options.lenient === true)
    return { kind: "record", record: record as unknown as PartialFailedRecord, missing: lacking }
  const first = lacking[0]
  if (first !== undefined) return invalid(`"${first}" is missing`)
  return { kind: "record", record: record as unknown as FailedRecord }
}

/**
 * Fills what an older line implies: `rounds` from `round` (the first log generation wrote only
 * `round`, 0 = the client's own request) and `format` from the first markup's.
 */
function derive(fields: Partial<Record<FailedRecordField, unknown>>): void {
  if (fields.rounds === undefined && isCount(fields.round)) fields.rounds = fields.round + 1
  if (fields.format === undefined && Array.isArray(fields.markup)) {
    const first: unknown = fields.markup[0]
    if (first !== undefined) fields.format = (first as { format: string }).format
  }
}

function invalid(reason: string): { readonly kind: "invalid"; readonly reason: string } {
  return { kind: "invalid", reason }
}
