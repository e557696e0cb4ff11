import { fc, test } from "@fast-check/vitest"
import { expect } from "vitest"
import { main } from "../src/main.ts"
import type { ReportData } from "../src/report/report-data.ts"
import { testIo } from "./support.ts"

/** What a line of a generated log is, and what the report must make of it. */
type Line =
  | {
      kind: "record"
      json: Record<string, unknown>
      model: string
      format: string
      outcome: string
      timed: boolean
      /** The line lacks a field of the current record (an old one, or one without a time). */
      partial: boolean
    }
  | { kind: "malformed"; text: string }
  | { kind: "blank"; text: string }

const name = fc.constantFrom("qwen3-coder", "glm-4.6", "llama|3", "mödel", "a b")
const format = fc.constantFrom("qwen3-coder", "hermes", "glm", "kimi-k2")
const outcome = fc.constantFrom("retried", "repeated", "truncated", "not-offered")
const time = fc.integer({ min: Date.parse("2026-01-01"), max: Date.parse("2026-03-01") })

/** A record of the first log generation (no model, outcome or format field) or of the later one. */
const record: fc.Arbitrary<Line> = fc
  .record({
    old: fc.boolean(),
    model: name,
    format,
    markupFormat: fc.option(format, { nil: undefined }),
    outcome,
    time: fc.option(time, { nil: undefined }),
    rounds: fc.integer({ min: 1, max: 3 }),
    tool: fc.option(fc.constantFrom("read_file", "bash"), { nil: undefined }),
  })
  .map((r): Line => {
    const markup = r.markupFormat === undefined ? [] : [{ format: r.markupFormat, toolName: r.tool }]
    const json: Record<string, unknown> = r.old
      ? { round: r.rounds - 1, text: "<tool_call>", reasoning: "", markup }
      : {
          model: r.model,
          protocol: "chat",
          route: "/v1/chat/completions",
          format: r.format,
          tools: ["read_file", "bash"],
          outcome: r.outcome,
          round: r.rounds - 1,
          rounds: r.rounds,
          text: "<tool_call>",
          markup,
        }
    if (r.time !== undefined) json.time = new Date(r.time).toISOString()
    return {
      kind: "record",
      json,
      model: r.old ? "unknown" : r.model,
      format: r.old ? (r.markupFormat ?? "unknown") : r.format,
      outcome: r.old ? "unknown" : r.outcome,
      timed: r.time !== undefined,
      partial: r.old || r.time === undefined,
    }
  })

const malformed: fc.Arbitrary<Line> = fc
  .constantFrom(
    "{",
    "[1,2]",
    '"text"',
    '{"text":1}',
    '{"text":"x","time":"yesterday"}',
    '{"text":"x","tools":"bash"}',
    '{"text":"x","rounds":-1}',
    '{"text":"x","outcome":7}',
  )
  .map((text) => ({ kind: "malformed", text }))

const blank: fc.Arbitrary<Line> = fc.constantFrom("", "  ").map((text) => ({ kind: "blank", text }))

const lineText = (line: Line): string => (line.kind === "record" ? JSON.stringify(line.json) : line.text)

test.prop([fc.array(fc.oneof({ weight: 6, arbitrary: record }, malformed, blank), { maxLength: 80 })])(
  "totals equal the records; every record lands in exactly one row; malformed lines by number",
  async (lines) => {
    const io = testIo({ stdin: `${lines.map(lineText).join("\n")}\n` })
    expect(await main(["report", "-", "--json"], io)).toBe(0)
    const data = JSON.parse(io.stdout.text()) as ReportData
    const records = lines.filter((line) => line.kind === "record")
    expect(data.records).toBe(records.length)
    const sum = (list: readonly { records: number }[]) =>
      list.reduce((total, entry) => total + entry.records, 0)
    for (const list of [data.rows, data.models, data.formats, data.tools, data.outcomes])
      expect(sum(list)).toBe(records.length)
    // An independent count per (model, format, outcome): each record in its row, no row shared.
    const oracle = new Map<string, number>()
    for (const line of records) {
      const key = JSON.stringify([line.model, line.format, line.outcome])
      oracle.set(key, (oracle.get(key) ?? 0) + 1)
    }
    expect(
      new Map(data.rows.map((row) => [JSON.stringify([row.model, row.format, row.outcome]), row.records])),
    ).toEqual(oracle)
    expect(data.rows.length).toBe(oracle.size)
    const timeline = data.timeline.series.reduce(
      (total, series) => total + series.counts.reduce((a, b) => a + b, 0),
      0,
    )
    expect(timeline).toBe(records.filter((line) => line.timed).length)
    expect(data.partialRecords).toBe(records.filter((line) => line.partial).length)
    const bad = lines.flatMap((line, index) => (line.kind === "malformed" ? [index + 1] : []))
    expect(data.malformedLines).toBe(bad.length)
    expect(data.malformed.map((line) => line.line)).toEqual(bad.slice(0, 50))
  },
)
