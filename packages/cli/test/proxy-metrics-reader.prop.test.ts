/**
 * `report`'s rates read the proxy's `/metrics`: requests with tools per model, as the proxy's own
 * writer counted them, whatever the model names hold.
 */
import { fc, test } from "@fast-check/vitest"
import { createProxyMetrics } from "@tool-rescue/proxy"
import { expect } from "vitest"
import { parseRequestsWithTools } from "../src/report/proxy-metrics-reader.ts"

const model = fc.oneof(
  fc.string({ unit: "binary", minLength: 1 }),
  fc
    .array(fc.constantFrom('"', "\\", "\n", "\\n", ",", "}", " ", 'mode="recovered"', "m"), {
      minLength: 1,
      maxLength: 10,
    })
    .map((parts) => parts.join("")),
)

test.prop([fc.array(fc.record({ model, tools: fc.boolean() }), { maxLength: 30 })])(
  "reads back the requests with tools the proxy counted, per model",
  async (requests) => {
    const metrics = createProxyMetrics()
    const expected = new Map<string, number>()
    for (const { model, tools } of requests) {
      metrics.request("chat", tools ? "recovered" : "passthrough", model)
      // Names past 200 characters are counted as `other` (createModelLabels).
      const label = model.length > 200 ? "other" : model
      if (tools) expected.set(label, (expected.get(label) ?? 0) + 1)
    }
    expect(parseRequestsWithTools(await metrics.render())).toEqual(expected)
  },
)

test("a model name with a backslash before an n reads back as written, not as a newline", async () => {
  // prom-client writes `a\nb` (backslash, n) as `a\\nb`; the reader this replaced undid `\n` before
  // `\\` and read a backslash and a newline.
  const metrics = createProxyMetrics()
  metrics.request("chat", "recovered", "a\\nb")
  expect(parseRequestsWithTools(await metrics.render())).toEqual(new Map([["a\\nb", 1]]))
})
