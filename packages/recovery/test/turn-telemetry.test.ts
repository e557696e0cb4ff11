import { fc, test as propTest } from "@fast-check/vitest"
import { metrics, trace } from "@opentelemetry/api"
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { scan } from "@tool-rescue/detector"
import { isToolCallRecoveryError, runTurn } from "@tool-rescue/recovery"
import { errorCodeOutcomes, planTurn, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { afterAll, beforeEach, describe, expect, test, vi } from "vitest"
import { loadTelemetryApi } from "../src/turn-telemetry.ts"
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

/**
 * `tool_rescue.outcomes` data points as `format/outcome → value` (all models) and
 * `format/outcome@model → value`. Awaits the lazy import of
 * `@opentelemetry/api` first: a turn's first span or count starts it, and what it recorded meanwhile
 * is applied once it resolves.
 */
async function outcomes(): Promise<Record<string, number>> {
  await loadTelemetryApi()
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics }
  const counts: Record<string, number> = {}
  for (const scope of resourceMetrics.scopeMetrics) {
    expect(scope.scope.name).toBe("@tool-rescue/recovery")
    for (const metric of scope.metrics) {
      expect(metric.descriptor.name).toBe("tool_rescue.outcomes")
      for (const point of metric.dataPoints) {
        const a = point.attributes
        const key = `${a["tool_rescue.format"]}/${a["tool_rescue.outcome"]}`
        counts[key] = (counts[key] ?? 0) + (point.value as number)
        const byModel = `${key}@${a["tool_rescue.model"]}`
        counts[byModel] = (counts[byModel] ?? 0) + (point.value as number)
      }
    }
  }
  return counts
}

/** Finished spans, once the lazy import of the API (if a turn started it) has resolved. */
async function finishedSpans() {
  await loadTelemetryApi()
  return spans.getFinishedSpans()
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
    const [span, ...more] = await finishedSpans()
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

  test("the count carries the request's model (the plan's), 'unknown' when none", async () => {
    const before = await outcomes()
    const plan = planTurn(resolveRecoveryOptions({}), { tools: ["read_file"], model: "qwen3-coder-30b" })
    if (plan.kind === "skip") throw new Error("skipped")
    const parts = runTurn(plan, {
      attempt: async function* (round) {
        if (round === 0) yield leak
        else yield call("read_file", '{"path":"a.ts"}')
        yield finish()
      },
    })
    for await (const _ of parts);
    await run([
      [leak, finish()],
      [call("read_file", "{}"), finish()],
    ])
    const after = await outcomes()
    const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0)
    expect(delta("qwen3-coder/recovered@qwen3-coder-30b")).toBe(1)
    expect(delta("qwen3-coder/recovered@unknown")).toBe(1)
  })

  test("a leak recovered across an announced-call retry counts as recovered; the announcement on its own", async () => {
    // The proxy's /metrics settles leaks from the same events: an announced retry in between
    // must not decide the leak's outcome (nor here, where the span's end does).
    const before = await outcomes()
    const result = await run(
      [
        [leak, finish()],
        [text("I'll use the read_file tool to read a.ts."), finish()],
        [call("read_file", '{"path":"a.ts"}'), finish()],
      ],
      { options: { announcedCalls: "retry", maxRecoveries: 2 } },
    )
    expect(result.events.map((e) => e.type)).toEqual([
      "markup-detected",
      "recovery-started",
      "recovery-started",
      "recovery-succeeded",
    ])
    const [span, ...more] = await finishedSpans()
    expect(more).toEqual([])
    expect(span?.attributes).toMatchObject({ "tool_rescue.outcome": "recovered", "tool_rescue.rounds": 2 })
    const after = await outcomes()
    const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0)
    expect(delta("qwen3-coder/recovered")).toBe(1)
    expect(delta("qwen3-coder/announced")).toBe(0)
    expect(delta("none/announced")).toBe(1)
  })

  test("a repeated leak: the span ends in error with outcome 'repeated'; each leaked response counts", async () => {
    const before = await outcomes()
    const result = await run([[leak, finish()]])
    expect(result.threw).toBe(true)
    const [span] = await finishedSpans()
    expect(span?.attributes["tool_rescue.outcome"]).toBe("repeated")
    expect(span?.attributes["tool_rescue.rounds"]).toBe(1)
    expect(span?.status.code).toBe(2) // ERROR
    const after = await outcomes()
    // The first response and its retry each wrote the call as text: two markups, one span.
    expect((after["qwen3-coder/repeated"] ?? 0) - (before["qwen3-coder/repeated"] ?? 0)).toBe(2)
  })

  test("one count per markup: leaks of two rounds both count as the retry's outcome, each by its format", async () => {
    const hermes = text('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>')
    const before = await outcomes()
    const result = await run(
      [
        [leak, finish()],
        [hermes, finish()],
        [call("read_file", '{"path":"a.ts"}'), finish()],
      ],
      { options: { maxRecoveries: 2 } },
    )
    expect(result.events.filter((e) => e.type === "markup-detected")).toHaveLength(2)
    const [span, ...more] = await finishedSpans()
    expect(more).toEqual([])
    expect(span?.attributes).toMatchObject({ "tool_rescue.format": "qwen3-coder", "tool_rescue.rounds": 2 })
    const after = await outcomes()
    const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0)
    expect(delta("qwen3-coder/recovered")).toBe(1)
    expect(delta("hermes/recovered")).toBe(1)
  })

  test("a turn with only an announced call counts 'announced', and no markup 'recovered'", async () => {
    // As the proxy's /metrics: an announcement is no call written as text, so no leak settles.
    const before = await outcomes()
    const result = await run(
      [
        [text("I'll use the read_file tool to read a.ts."), finish()],
        [call("read_file", '{"path":"a.ts"}'), finish()],
      ],
      { options: { announcedCalls: "retry" } },
    )
    expect(result.events.map((e) => e.type)).toEqual(["recovery-started", "recovery-succeeded"])
    const [span] = await finishedSpans()
    expect(span?.attributes).toMatchObject({
      "tool_rescue.format": "none",
      "tool_rescue.outcome": "recovered",
    })
    const after = await outcomes()
    const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0)
    expect(delta("none/announced")).toBe(1)
    expect(delta("none/recovered")).toBe(0)
    expect(Object.keys(after).filter((key) => delta(key) !== 0)).toEqual([
      "none/announced",
      "none/announced@unknown",
    ])
  })

  test("markup naming a tool that is not offered is counted, with no span (nothing was retried)", async () => {
    const before = await outcomes()
    await run([[notOffered, finish()]])
    expect(await finishedSpans()).toEqual([])
    const after = await outcomes()
    expect((after["qwen3-coder/not-offered"] ?? 0) - (before["qwen3-coder/not-offered"] ?? 0)).toBe(1)
  })

  test("a consumer that stops reading during the retry ends the span as 'cancelled', and counts its markup so", async () => {
    const before = await outcomes()
    await run(
      [
        [leak, finish()],
        [text("partial "), text("answer"), finish()],
      ],
      {
        onPart: (part) => part.type === "attempt-start",
      },
    )
    const [span] = await finishedSpans()
    expect(span?.attributes["tool_rescue.outcome"]).toBe("cancelled")
    const after = await outcomes()
    expect((after["qwen3-coder/cancelled"] ?? 0) - (before["qwen3-coder/cancelled"] ?? 0)).toBe(1)
  })

  test("a retry whose stream reports a provider error ends the span as 'provider-error'", async () => {
    await run([
      [leak, finish()],
      [text("partial"), { type: "other", raw: "error chunk", failed: true }, finish()],
    ])
    const [span] = await finishedSpans()
    expect(span?.attributes["tool_rescue.outcome"]).toBe("provider-error")
  })

  test("a turn without markup makes no span and no count", async () => {
    const before = await outcomes()
    await run([[text("Just an answer."), finish()]])
    expect(await finishedSpans()).toEqual([])
    expect(await outcomes()).toEqual(before)
  })

  test("what a turn records before @opentelemetry/api has loaded is applied once it has, with its own times", async () => {
    // A fresh module: the API not imported yet, as in a process whose first turn this is.
    vi.resetModules()
    const fresh = await import("../src/turn-telemetry.ts")
    const before = await outcomes()
    const [markup] = scan("<tool_call>\n<function=read_file>\n</function>\n</tool_call>", {
      tools: ["read_file"],
    }).markup
    // Our clock, set far from the SDK's own (performance-based) one, so a span dated by the SDK
    // when the import resolved would show. Later than the time origin: earlier epoch numbers mean
    // "relative to the time origin" to the SDK.
    const startedAt = Math.ceil(performance.timeOrigin) + 1e11
    vi.useFakeTimers({ toFake: ["Date"], now: startedAt })
    if (markup === undefined) throw new Error("the detector found no markup")
    const telemetry = fresh.createTurnTelemetry()
    telemetry.record({
      type: "markup-detected",
      round: 0,
      markup,
      recoverable: true,
      reason: "recoverable",
      channel: "text",
      text: "",
    })
    telemetry.record({ type: "recovery-started", round: 1, markup: [markup] })
    vi.setSystemTime(startedAt + 5000)
    telemetry.record({ type: "recovery-failed", round: 1, error: new Error("provider down") })
    telemetry.end()
    vi.useRealTimers()
    // The import is still in flight: nothing has reached the SDK yet.
    expect(spans.getFinishedSpans()).toEqual([])
    await fresh.loadTelemetryApi()
    const [span, ...more] = spans.getFinishedSpans()
    expect(more).toEqual([])
    expect(span?.attributes).toEqual({
      "tool_rescue.format": "qwen3-coder",
      "tool_rescue.tool": "read_file",
      "tool_rescue.outcome": "provider-error",
      "tool_rescue.rounds": 1,
    })
    expect(span?.status.code).toBe(2)
    // Dated when the events happened, not when the import resolved.
    expect(span?.startTime).toEqual([Math.floor(startedAt / 1000), (startedAt % 1000) * 1e6])
    expect(span?.duration).toEqual([5, 0])
    const after = await outcomes()
    expect((after["qwen3-coder/provider-error"] ?? 0) - (before["qwen3-coder/provider-error"] ?? 0)).toBe(1)
  })

  /** What one attempt answers: a leak (two formats), markup kept as text, an announcement, a call, prose. */
  const answers = {
    qwen: [leak, finish()],
    hermes: [
      text('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>'),
      finish(),
    ],
    notOffered: [notOffered, finish()],
    announced: [text("I'll use the read_file tool to read a.ts."), finish()],
    call: [call("read_file", '{"path":"a.ts"}'), finish()],
    prose: [text("Done."), finish()],
  } as const
  const answer = fc.constantFrom(...(Object.keys(answers) as (keyof typeof answers)[]))

  propTest.prop([fc.array(answer, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 2 })], {
    numRuns: 60,
  })(
    "counts each markup once: markup a retry was spent on with the turn's ending, kept-as-text markup as kept, announcements as announced",
    async (script, maxRecoveries) => {
      const before = await outcomes()
      const result = await run(
        script.map((name) => answers[name]),
        { options: { maxRecoveries, announcedCalls: "retry" } },
      )
      const after = await outcomes()
      // The oracle: the turn's own events and result, counted here without the library's rule.
      const ending = !result.threw
        ? "recovered"
        : isToolCallRecoveryError(result.error)
          ? errorCodeOutcomes[result.error.code]
          : "provider-error"
      const expected = new Map<string, number>()
      const add = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1)
      for (const event of result.events) {
        if (event.type === "markup-detected")
          add(`${event.markup.format}/${event.recoverable ? ending : event.reason}`)
        if (event.type === "recovery-started" && event.announced !== undefined) add("none/announced")
      }
      const delta = new Map<string, number>()
      for (const [key, value] of Object.entries(after)) {
        if (key.includes("@")) continue
        const change = value - (before[key] ?? 0)
        if (change !== 0) delta.set(key, change)
      }
      expect(delta).toEqual(expected)
    },
  )
})
