/**
 * The failed log's one reader, `parseFailedRecord`: what `failedLine` writes reads back whole
 * (strict), and an older or partial line reads leniently with the fields it lacked named.
 */
import { fc, it } from "@fast-check/vitest"
import { scan } from "@tool-rescue/detector"
import { leakedCall } from "@tool-rescue/testing"
import { describe, expect } from "vitest"
import { failedLine } from "../src/failed-log.ts"
import { type FailedRecordField, parseFailedRecord } from "../src/index.ts"
import type { ProxyFailedResponse } from "../src/proxy-failed-response.ts"

const TOOLS = ["read_file", "bash"]
const count = fc.nat({ max: 5 })
/** What the proxy hands the log: a real leak, its markup as the detector reports it. */
const failed: fc.Arbitrary<ProxyFailedResponse> = fc
  .record({
    leak: leakedCall({ tools: TOOLS, format: ["qwen3-coder", "hermes", "glm"] }),
    model: fc.option(fc.string(), { nil: undefined }),
    protocol: fc.constantFrom("chat", "responses", "messages"),
    route: fc.constantFrom("/v1/chat/completions", "/v1/responses", "/v1/messages"),
    outcome: fc.constantFrom("retried", "repeated", "truncated", "not-offered"),
    round: count,
    recoveriesBefore: count,
    reasoning: fc.string(),
  })
  .map(({ leak, model, ...rest }) => ({
    ...rest,
    text: leak.text,
    markup: scan(leak.text, { tools: TOOLS }).markup,
    model,
  }))
  .filter((response) => response.markup.length > 0)
  .map(({ model, markup, ...rest }) => ({
    ...rest,
    ...(model === undefined ? {} : { model }),
    format: markup[0]!.format,
    tools: TOOLS,
    rounds: rest.round + 1,
    markup,
  }))

/** The fields a line may lack, the ones that fill in from others left aside. */
const DROPPABLE: readonly FailedRecordField[] = ["time", "model", "protocol", "route", "tools", "outcome"]

describe("parseFailedRecord", () => {
  it.prop([failed])("reads back every line the writer writes, strictly", (response) => {
    const line = failedLine(response, new Date(Date.UTC(2026, 0, 2)))
    const parsed = parseFailedRecord(line)
    expect(parsed).toEqual({ kind: "record", record: JSON.parse(line) })
    // The lenient read of a whole line is the same record, with nothing missing.
    expect(parseFailedRecord(line, { lenient: true })).toEqual({ ...parsed, missing: [] })
  })

  it.prop([failed, fc.subarray([...DROPPABLE, "rounds", "format"] as FailedRecordField[])])(
    "a line without some fields is invalid strictly, and reads leniently naming exactly what it lacked",
    (response, dropped) => {
      const whole = JSON.parse(failedLine(response)) as Record<string, unknown>
      for (const field of dropped) delete whole[field]
      const strict = parseFailedRecord(whole)
      const lenient = parseFailedRecord(whole, { lenient: true })
      if (lenient.kind !== "record") throw new Error(lenient.reason)
      // `rounds` and `format` fill in from `round` and the markup, so they are never missing here.
      expect(lenient.missing).toEqual(DROPPABLE.filter((field) => dropped.includes(field)))
      expect(lenient.record.rounds).toBe(response.rounds)
      expect(lenient.record.format).toBe(response.format)
      for (const field of dropped)
        if (lenient.missing.includes(field)) expect(lenient.record).not.toHaveProperty(field)
      expect(strict.kind).toBe(dropped.length === 0 ? "record" : "invalid")
      if (strict.kind === "invalid") expect(strict.reason).toMatch(/^"\w+" is missing$/)
    },
  )

  it.prop([failed])(
    "reads a line of the first log generation leniently, its later fields missing",
    (response) => {
      // The first generation wrote the library's FailedResponse and a time: no model, protocol,
      // route, format, tools, outcome or rounds.
      const { time, round, text, reasoning, markup } = JSON.parse(failedLine(response)) as Record<
        string,
        unknown
      >
      const old = { time, round, text, reasoning, markup }
      expect(parseFailedRecord(old, { lenient: true })).toEqual({
        kind: "record",
        record: { ...old, recoveriesBefore: 0, rounds: response.rounds, format: response.format },
        missing: ["model", "protocol", "route", "tools", "outcome"],
      })
      expect(parseFailedRecord(old)).toEqual({ kind: "invalid", reason: `"model" is missing` })
    },
  )

  it("keeps model: null (a request that named no model) as a value", () => {
    const parsed = parseFailedRecord({ text: "x", model: null }, { lenient: true })
    expect(parsed).toMatchObject({ kind: "record", record: { model: null } })
    expect(parsed.kind === "record" && parsed.missing).not.toContain("model")
  })

  it.each([
    ["{oops", "not JSON"],
    [[1], "not a JSON object"],
    [{ round: 0 }, `no "text" (not a failed-log record)`],
    [{ text: "x", time: "soon" }, `"time" is not an ISO 8601 date`],
    [{ text: "x", model: 3 }, `"model" is not a string or null`],
    [{ text: "x", tools: [1] }, `"tools" is not a list of names`],
    [{ text: "x", rounds: 1.5 }, `"rounds" is not a count`],
    [{ text: "x", outcome: 1 }, `"outcome" is not a string`],
    [{ text: "x", protocol: ["chat"] }, `"protocol" is not a string`],
    [{ text: "x", markup: {} }, `"markup" is not a list of markup objects`],
    [{ text: "x", markup: [{ toolName: "bash" }] }, `"markup" is not a list of markup objects`],
    [{ text: "x", reasoning: 1 }, `"reasoning" is not a string`],
  ])("says why %j is not a record, in either mode", (value, reason) => {
    expect(parseFailedRecord(value, { lenient: true })).toEqual({ kind: "invalid", reason })
    expect(parseFailedRecord(value)).toEqual({ kind: "invalid", reason })
  })

  it("reads an outcome or protocol it does not know (a newer log's) leniently under its own name; strictly, says which it knows", () => {
    const newer = { text: "x", outcome: "cancelled", protocol: "realtime" }
    expect(parseFailedRecord(newer, { lenient: true })).toMatchObject({
      kind: "record",
      record: { outcome: "cancelled", protocol: "realtime" },
    })
    expect(parseFailedRecord({ ...newer, protocol: "chat" })).toEqual({
      kind: "invalid",
      reason: `"outcome" is not retried, repeated, truncated or not-offered`,
    })
    expect(parseFailedRecord({ ...newer, outcome: "retried" })).toEqual({
      kind: "invalid",
      reason: `"protocol" is not chat, responses or messages`,
    })
  })
})
