/**
 * `/metrics`'s one reader, `parseMetricSamples`: what prom-client (the proxy's writer) wrote reads
 * back label for label and count for count, whatever the label values hold — quotes, backslashes,
 * newlines, `outcome="x"` inside a model name.
 */
import { fc, it } from "@fast-check/vitest"
import { scan } from "@tool-rescue/detector"
import { ToolCallRecoveryError } from "@tool-rescue/recovery"
import { Counter, Registry } from "prom-client"
import { describe, expect } from "vitest"
import { createProxyMetrics, type MetricSample, parseMetricSamples } from "../src/index.ts"

/** Label text that has fooled or could fool a reader: the format's own syntax and escapes. */
const labelValue = fc.oneof(
  fc.string({ unit: "binary" }),
  fc
    .array(
      fc.constantFrom(
        '"',
        "\\",
        "\n",
        "\\n",
        "\r",
        ",",
        "=",
        "{",
        "}",
        " ",
        "#",
        'outcome="x"',
        "a",
        "é",
        "😀",
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join("")),
)

/** A sample as data, for `toEqual` (a `Map`'s entries in order). */
const plain = (sample: MetricSample) => ({
  name: sample.name,
  labels: Object.fromEntries(sample.labels),
  value: sample.value,
})

/** Every line that is not blank or a `#` line: the reader must skip none of the writer's. */
const sampleLines = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#"))

describe("parseMetricSamples", () => {
  it.prop([
    fc.array(
      fc.record({
        labels: fc.record({
          protocol: labelValue,
          format: labelValue,
          outcome: labelValue,
          model: labelValue,
        }),
        by: fc.integer({ min: 1, max: 1000 }),
      }),
      { maxLength: 20 },
    ),
  ])("reads back every series prom-client wrote, with its labels and its count", async (incs) => {
    const registry = new Registry()
    const counter = new Counter({
      name: "tool_rescue_proxy_leaks_total",
      help: 'Help with "quotes", a \\ and a\nnewline.',
      labelNames: ["protocol", "format", "outcome", "model"] as const,
      registers: [registry],
    })
    for (const { labels, by } of incs) counter.inc(labels, by)
    const text = await registry.metrics()
    const samples = parseMetricSamples(text)
    // The oracle is the writer's own state, not our model of it (prom-client merges series by its
    // own key).
    const written = (await counter.get()).values.map(({ labels, value }) => ({
      name: "tool_rescue_proxy_leaks_total",
      labels,
      value,
    }))
    expect(samples.map(plain)).toEqual(written)
    expect(samples).toHaveLength(sampleLines(text).length)
  })

  it.prop([
    fc.array(
      fc.record({
        model: fc.option(labelValue, { nil: undefined }),
        mode: fc.constantFrom("recovered", "passthrough"),
        ending: fc.constantFrom("succeeded", "failed", "repeated", "not-offered"),
      }),
      { maxLength: 15 },
    ),
  ])(
    "reads the proxy's own /metrics whole: every value of every metric, for any model names",
    async (turns) => {
      const registry = new Registry()
      const metrics = createProxyMetrics({ registry })
      const [markup] = scan("<tool_call>\n<function=read_file>\n</function>\n</tool_call>", {
        tools: ["read_file"],
      }).markup
      if (markup === undefined) throw new Error("the detector found no markup")
      for (const { model, mode, ending } of turns) {
        metrics.request("chat", mode, model)
        const listen = metrics.turn("chat", model)
        const reason = ending === "not-offered" ? "not-offered" : "recoverable"
        listen({
          type: "markup-detected",
          round: 0,
          markup,
          recoverable: reason === "recoverable",
          reason,
          channel: "text",
          text: "",
        })
        if (ending === "succeeded") listen({ type: "recovery-succeeded", round: 1 })
        if (ending === "failed")
          listen({ type: "recovery-failed", round: 1, error: new Error("provider down") })
        if (ending === "repeated") {
          const error = new ToolCallRecoveryError({ code: "repeated-markup", rounds: 2, markup: [] })
          listen({ type: "recovery-failed", round: 1, error })
        }
        metrics.added("chat", "request", 0.001)
      }
      const text = await metrics.render()
      const samples = parseMetricSamples(text)
      expect(samples).toHaveLength(sampleLines(text).length)
      // Every value of every metric, the latency histogram's buckets (`le`, a number to prom-client,
      // written as the text format spells it) included.
      const written = (await registry.getMetricsAsJSON()).flatMap((metric) =>
        metric.values.map(({ labels, value, ...rest }) => ({
          // A histogram's values name their series (`…_bucket`, `…_sum`, `…_count`).
          name: "metricName" in rest && typeof rest.metricName === "string" ? rest.metricName : metric.name,
          labels: Object.fromEntries(
            Object.entries(labels).map(([label, v]) => [
              label,
              v === Number.POSITIVE_INFINITY ? "+Inf" : String(v),
            ]),
          ),
          value,
        })),
      )
      expect(samples.map(plain)).toEqual(written)
    },
  )

  it("reads the text format's other spellings: no labels, a trailing comma, a timestamp, +Inf, NaN", () => {
    const text = [
      "# HELP up 1 when up",
      "# TYPE up gauge",
      "up 1",
      'a_bucket{le="+Inf",} +Inf 1700000000000',
      "b NaN",
      "c -Inf",
      'd{x="1"}   2.5e3',
      "",
    ].join("\n")
    expect(parseMetricSamples(text).map(plain)).toEqual([
      { name: "up", labels: {}, value: 1 },
      { name: "a_bucket", labels: { le: "+Inf" }, value: Number.POSITIVE_INFINITY },
      { name: "b", labels: {}, value: Number.NaN },
      { name: "c", labels: {}, value: Number.NEGATIVE_INFINITY },
      { name: "d", labels: { x: "1" }, value: 2500 },
    ])
  })

  it("skips lines that hold no sample, and reads on", () => {
    const text = [
      'unterminated{model="a} 1',
      'unknown_escape{model="a\\tb"} 1',
      'duplicate{a="1",a="2"} 1',
      "not_a_number 0x10",
      "trailing 1 2 3",
      "9starts_with_a_digit 1",
      'ok{model="a\\\\nb"} 4',
    ].join("\n")
    expect(parseMetricSamples(text).map(plain)).toEqual([
      { name: "ok", labels: { model: "a\\nb" }, value: 4 },
    ])
  })
})
