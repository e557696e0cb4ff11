/**
 * Poolside Laguna's reasoning block, `<thought>` … `</thought>` at the start of the answer (Ollama
 * `model/parsers/laguna_test.go`). A GLM call inside it is `inReasoning`; with an answer after the
 * block it is a rehearsal (not recoverable under the default policy), without one it is the call.
 * A `<thought>` mentioned after prose opens nothing. Each generated value carries these labels.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { isRecoverable, scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const TOOLS = ["get_weather"]
const CALL = "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>"

const sample = fc
  .record({
    lead: fc.constantFrom("", "Use "),
    inside: fc.boolean(),
    closed: fc.boolean(),
    answer: fc.constantFrom("", "\nIt is sunny."),
  })
  .map(({ lead, inside, closed, answer }) => {
    // With the call inside, the block's close (and any answer) come after it; outside, the call
    // follows the closed block.
    const text = inside
      ? `${lead}<thought>Plan ${CALL}${closed ? `</thought>${answer}` : ""}`
      : `${lead}<thought>Plan</thought>\n${CALL}`
    const reasoning = lead === "" && inside
    const answered = reasoning && closed && answer !== ""
    return { text, reasoning, recoverable: !answered }
  })

describe("Laguna's <thought> block", () => {
  test.prop([sample], { numRuns: 200 })(
    "holds the calls inside it, recoverable unless an answer follows",
    (v) => {
      const { markup } = scan(v.text, { tools: TOOLS })
      expect(markup.map((m) => [m.format, m.toolName, m.inReasoning, isRecoverable(m)])).toEqual([
        ["glm", "get_weather", v.reasoning, v.recoverable],
      ])
    },
  )

  test.prop([sample.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 150 })(
    "the same however the stream is cut",
    ([v, points]) => {
      expect(feed(splitAt(v.text, points), { tools: TOOLS })).toMatchObject(scan(v.text, { tools: TOOLS }))
    },
  )
})
