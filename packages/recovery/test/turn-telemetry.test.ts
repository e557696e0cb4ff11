import { metrics, trace } from "@opentelemetry/api"
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { afterAll, beforeEach, describe, expect, test } from "vitest"
import { call, finish, run, text } from "./support/script.ts"

// A host's OpenTelemetry SDK, in memory: what an operator's exporter would receive.
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}
const spans = new InMemorySpanExporter()
const reader = new TestReader()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }))
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
afterAll(() => {
  trace.disable()
  metrics.disable()
})

/** `tool_rescue.outcomes` data points as `format/outcome → value`. */
async function outcomes(): Promise<Record<string, number>> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics }
  const counts: Record<string, number> = {}
  for (const scope of resourceMetrics.scopeMetrics) {
    expect(scope.scope.name).toBe("@tool-rescue/recovery")
    for (const metric of scope.metrics) {
      expect(metric.descriptor.name).toBe("tool_rescue.outcomes")
      for (const point of metric.dataPoints) {
        const a = point.attributes
        counts[`${a["tool_rescue.format"]}/${a["tool_rescue.outcome"]}`] = point.value as number
      }
    }
  }
  return counts
}

const leak = text("<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>")
const notOffered = text(
  "<tool_call>\n<function=rm>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>",
)

describe("OpenTelemetry through @opentelemetry/api", () => {
  beforeEach(() => spans.reset())

  test("a recovered turn: one span with format, tool, outcome and rounds; one 'recovered' count", async () => {
    const before = await outcomes()
    await run([
      [text("Reading.\n"), leak, finish()],
      [call("read_file", '{"path":"a.ts"}'), finish()],
    ])
    const [span, ...more] = spans.getFinishedSpans()
    expect(more).toEqual([])
    expect(span?.name).toBe("tool_rescue.recovery")
    expect(span?.attributes).toEqual({
      "tool_rescue.format": "qwen3-coder",
      "tool_rescue.tool": "read_file",
      "tool_rescue.outcome": "recovered",
      "tool_rescue.rounds": 1,
    })
    expect(span?.status.code).toBe(0) // UNSET: not an error
    const after = await outcomes()
    expect((after["qwen3-coder/recovered"] ?? 0) - (before["qwen3-coder/recovered"] ?? 0)).toBe(1)
  })

  test("a repeated leak: the span ends in error with outcome 'repeated'", async () => {
    const before = await outcomes()
    const result = await run([[leak, finish()]])
    expect(result.threw).toBe(true)
    const [span] = spans.getFinishedSpans()
    expect(span?.attributes["tool_rescue.outcome"]).toBe("repeated")
    expect(span?.attributes["tool_rescue.rounds"]).toBe(1)
    expect(span?.status.code).toBe(2) // ERROR
    const after = await outcomes()
    expect((after["qwen3-coder/repeated"] ?? 0) - (before["qwen3-coder/repeated"] ?? 0)).toBe(1)
  })

  test("markup naming a tool that is not offered is counted, with no span (nothing was retried)", async () => {
    const before = await outcomes()
    await run([[notOffered, finish()]])
    expect(spans.getFinishedSpans()).toEqual([])
    const after = await outcomes()
    expect((after["qwen3-coder/not-offered"] ?? 0) - (before["qwen3-coder/not-offered"] ?? 0)).toBe(1)
  })

  test("a consumer that stops reading during the retry ends the span as 'cancelled'", async () => {
    await run(
      [
        [leak, finish()],
        [text("partial "), text("answer"), finish()],
      ],
      {
        onPart: (part) => part.type === "attempt-start",
      },
    )
    const [span] = spans.getFinishedSpans()
    expect(span?.attributes["tool_rescue.outcome"]).toBe("cancelled")
  })

  test("a turn without markup makes no span and no count", async () => {
    const before = await outcomes()
    await run([[text("Just an answer."), finish()]])
    expect(spans.getFinishedSpans()).toEqual([])
    expect(await outcomes()).toEqual(before)
  })
})
