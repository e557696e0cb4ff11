/**
 * `parseCounts`, the agent CLI path's reader of serve's `/metrics`: the leaks the proxy's own
 * writer counted read back, whatever the model names hold.
 */
import { fc, it } from "@fast-check/vitest"
import { createProxyMetrics } from "@tool-rescue/proxy"
import { type RecoveryEvent, ToolCallRecoveryError } from "@tool-rescue/recovery"
import { describe, expect } from "vitest"
import { parseCounts } from "../src/serve-process.ts"

type Markup = Extract<RecoveryEvent, { type: "markup-detected" }>["markup"]

/** A Qwen3-Coder call to `read_file`, as the detector reports it. */
const markup: Markup = {
  format: "qwen3-coder",
  toolName: "read_file",
  offered: true,
  opening: true,
  closing: true,
  structured: true,
  complete: true,
  inReasoning: false,
  answerFollows: false,
  start: 0,
  end: 60,
}

/** Model names that hold the exposition's own syntax. */
const model = fc.oneof(
  fc.string({ unit: "binary" }),
  fc
    .array(fc.constantFrom('"', "\\", "\n", "\\n", ",", "}", " ", 'outcome="recovered"', 'outcome="', "m"), {
      maxLength: 10,
    })
    .map((parts) => parts.join("")),
)

const ending = fc.constantFrom("recovered", "repeated", "truncated", "provider-error", "not-offered")

describe("parseCounts", () => {
  it.prop([fc.array(fc.record({ model, ending }), { maxLength: 20 })])(
    "reads back the leaks the proxy's writer counted, by outcome, for any model names",
    async (turns) => {
      const metrics = createProxyMetrics()
      const expected = { leaks: 0, recoveries: 0, errors: {} as Record<string, number> }
      for (const { model, ending } of turns) {
        const listen = metrics.turn("chat", model)
        const kept = ending === "not-offered"
        listen({
          type: "markup-detected",
          round: 0,
          markup,
          recoverable: !kept,
          reason: kept ? "not-offered" : "recoverable",
          channel: "text",
          text: "",
        })
        if (kept) continue
        expected.leaks++
        if (ending === "recovered") {
          listen({ type: "recovery-succeeded", round: 1 })
          expected.recoveries++
        } else if (ending === "provider-error") {
          listen({ type: "recovery-failed", round: 1, error: new Error("provider down") })
        } else {
          const code = ending === "repeated" ? "repeated-markup" : "truncated-call"
          listen({
            type: "recovery-failed",
            round: 1,
            error: new ToolCallRecoveryError({ code, rounds: 2, markup: [] }),
          })
          expected.errors[code] = (expected.errors[code] ?? 0) + 1
        }
      }
      expect(parseCounts(await metrics.render())).toEqual(expected)
    },
  )

  it("reads the outcome label, not an `outcome=` in a model name written before it", () => {
    // The text format does not fix the order of labels. The reader this replaced matched
    // /outcome="([^"]*)"/ over the whole line: here it read `,outcome=` (the model's text and its
    // closing quote) and counted a truncated call as a leak of no known outcome.
    const line =
      'tool_rescue_proxy_leaks_total{model="outcome=",outcome="truncated",protocol="chat",format="qwen3-coder"} 1'
    expect(parseCounts(`${line}\n`)).toEqual({ leaks: 1, recoveries: 0, errors: { "truncated-call": 1 } })
  })
})
