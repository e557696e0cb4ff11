/**
 * OpenTelemetry for recovery, through `@opentelemetry/api` only: with no SDK registered by the
 * host every call below is the API's no-op, so a turn without markup costs one closure.
 *
 * The API is loaded by a dynamic `import()` on the first span or count, not with this module: a
 * program that only judges responses (the CLI's `scan`, `createResponseJudge`) never loads it,
 * and a turn without markup never does either. Until the import resolves, spans and counts wait
 * in order with the times they happened at, so nothing is lost or misdated.
 *
 * The names are a stable contract (README "Telemetry"):
 * - span `tool_rescue.recovery`, one per model call that started a recovery, from the
 *   `recovery-started` event to the turn's end, with attributes
 *   `tool_rescue.format`, `tool_rescue.tool`, `tool_rescue.outcome`, `tool_rescue.rounds`;
 *   status ERROR when the outcome is not `recovered`;
 * - counter `tool_rescue.outcomes` (unit `{markup}`), attributes `tool_rescue.format`,
 *   `tool_rescue.outcome` and `tool_rescue.model` (the request's model when the adapter knows it,
 *   else `unknown`; the first 100 distinct names, then `other`): one per recovered, failed or
 *   kept-as-text markup of the turn, by the rule the proxy's `/metrics` counts leaks by
 *   (`createMarkupOutcomes`: a turn that leaked in two rounds counts two), and one `announced`
 *   (format `none`) per announced-but-missing call retried — an announcement is no markup, so a
 *   turn with only an announcement counts no `recovered`.
 */
import type { Span } from "@opentelemetry/api"
import { createMarkupOutcomes } from "./markup-outcomes.ts"
import { createModelLabels } from "./model-labels.ts"
import { type RecoveryOutcome, recoveryOutcome } from "./recovery-outcome.ts"
import type { RecoveryEvent } from "./types.ts"

/**
 * The instrumentation scope (tracer and meter name) of every span and counter.
 *
 * @example
 * ```ts
 * import { TELEMETRY_SCOPE } from "./turn-telemetry.ts"
 *
 * const ours = (scopeName: string) => scopeName === TELEMETRY_SCOPE
 * ```
 */
export const TELEMETRY_SCOPE = "@tool-rescue/recovery"

/**
 * Per model call: receives the turn's events, then `end()` once the turn is over.
 *
 * @example
 * ```ts
 * import { createTurnTelemetry, type TurnTelemetry } from "./turn-telemetry.ts"
 *
 * const telemetry: TurnTelemetry = createTurnTelemetry()
 * ```
 */
export interface TurnTelemetry {
  record(event: RecoveryEvent): void
  end(): void
}

/**
 * Starts the telemetry of one model call. `runTurn` calls it; adapters need not.
 *
 * @example
 * ```ts
 * import { createTurnTelemetry } from "./turn-telemetry.ts"
 *
 * const telemetry = createTurnTelemetry()
 * telemetry.record({ type: "recovery-succeeded", round: 1 })
 * telemetry.end()
 * ```
 */
export function createTurnTelemetry(model?: string): TurnTelemetry {
  const modelLabel = modelLabels(model)
  const count = (format: string, outcome: RecoveryOutcome) => countOutcome(format, outcome, modelLabel)
  // One count per markup, by the rule the proxy's /metrics counts by.
  const markupOutcomes = createMarkupOutcomes(count)
  let span: SpanState = { name: "none" }
  let rounds = 0
  let ended = false

  const finish = (outcome: RecoveryOutcome) => {
    if (span.name === "none") return
    const open = span
    span = { name: "none" }
    const endTime = Date.now()
    const attributes = { "tool_rescue.outcome": outcome, "tool_rescue.rounds": rounds }
    withApi((otel) => {
      if (open.span === undefined) return
      open.span.setAttributes(attributes)
      if (outcome !== "recovered") open.span.setStatus({ code: otel.SpanStatusCode.ERROR, message: outcome })
      // A span started late carries its recorded start time: its end must come from the same clock.
      open.span.end(open.dated ? endTime : undefined)
    })
  }

  return {
    record(event) {
      if (ended) return
      markupOutcomes.record(event)
      switch (event.type) {
        case "markup-detected":
          return
        case "recovery-started": {
          rounds = event.round
          const first = event.markup[0]
          if (recoveryOutcome(event) === "announced") count("none", "announced")
          if (span.name === "none") {
            const format = first?.format ?? (event.announced === undefined ? "unknown" : "none")
            const tool = first?.toolName ?? event.announced
            const attributes = {
              "tool_rescue.format": format,
              ...(tool === undefined ? {} : { "tool_rescue.tool": tool }),
            }
            const open: OpenSpan = { name: "open", span: undefined, dated: false }
            const startTime = Date.now()
            span = open
            withApi((otel, late) => {
              open.dated = late
              open.span = otel.trace
                .getTracer(TELEMETRY_SCOPE)
                .startSpan("tool_rescue.recovery", late ? { attributes, startTime } : { attributes })
            })
          }
          return
        }
        case "recovery-succeeded":
        case "recovery-failed":
          rounds = event.round
          finish(recoveryOutcome(event) ?? "provider-error")
          return
        case "recovery-skipped":
        case "unknown-tool-call":
          return
        default:
          event satisfies never
      }
    },
    end() {
      if (ended) return
      ended = true
      markupOutcomes.end()
      // A span still open: the consumer stopped reading while the retry ran.
      if (span.name === "open") finish("cancelled")
    },
  }
}

/** The turn's `tool_rescue.recovery` span: none, or open (created once the API has loaded). */
type SpanState = { readonly name: "none" } | OpenSpan

interface OpenSpan {
  readonly name: "open"
  /** `undefined` until the API has loaded and the span was started. */
  span: Span | undefined
  /** Started late, with its recorded start time: its end is dated too. */
  dated: boolean
}

/**
 * The counter is looked up on every count, not cached: the metrics API has no proxy provider, so
 * an instrument made before the host registers its SDK would stay a no-op forever. Counts are
 * rare (a markup), and the SDK returns the same instrument for the same name.
 */
function countOutcome(format: string, outcome: RecoveryOutcome, model: string): void {
  const attributes = {
    "tool_rescue.format": format,
    "tool_rescue.outcome": outcome,
    "tool_rescue.model": model,
  }
  withApi((otel) =>
    otel.metrics
      .getMeter(TELEMETRY_SCOPE)
      .createCounter("tool_rescue.outcomes", {
        description: "Tool-call markup written as text, by format and by what recovery made of it",
        unit: "{markup}",
      })
      .add(1, attributes),
  )
}

/** The counter's model labels, process-wide (one counter, whatever the adapter). */
const modelLabels = createModelLabels()

type OpenTelemetryApi = typeof import("@opentelemetry/api")

/** An operation on the API; `late` when it waited for the import. */
type ApiOperation = (otel: OpenTelemetryApi, late: boolean) => void

/**
 * Where the process-wide import of `@opentelemetry/api` stands. `unavailable`: the import failed
 * (a bundle that left the optional API out); telemetry is then off and turns go on untouched.
 */
type ApiState =
  | { readonly name: "unloaded" }
  | { readonly name: "loading"; readonly waiting: ApiOperation[]; readonly loaded: Promise<void> }
  | { readonly name: "loaded"; readonly otel: OpenTelemetryApi }
  | { readonly name: "unavailable" }

let api: ApiState = { name: "unloaded" }

/** Runs `operation` now when the API is loaded, else queues it (in order) and starts the import. */
function withApi(operation: ApiOperation): void {
  switch (api.name) {
    case "loaded":
      operation(api.otel, false)
      return
    case "loading":
      api.waiting.push(operation)
      return
    case "unloaded":
      void loadTelemetryApi()
      withApi(operation)
      return
    case "unavailable":
      return
    default:
      api satisfies never
  }
}

/**
 * Loads `@opentelemetry/api` once (the first span or count does it) and runs what waited for it.
 * Not exported from the package: tests await it to read spans right after a turn.
 */
export function loadTelemetryApi(): Promise<void> {
  switch (api.name) {
    case "loading":
      return api.loaded
    case "loaded":
    case "unavailable":
      return Promise.resolve()
    case "unloaded": {
      const waiting: ApiOperation[] = []
      const loaded = import("@opentelemetry/api").then(
        (otel) => {
          api = { name: "loaded", otel }
          for (const operation of waiting) {
            // No turn to report to any more: a faulty SDK must not become an unhandled rejection.
            try {
              operation(otel, true)
            } catch {}
          }
        },
        () => {
          api = { name: "unavailable" }
        },
      )
      api = { name: "loading", waiting, loaded }
      return loaded
    }
    default:
      return api satisfies never
  }
}
