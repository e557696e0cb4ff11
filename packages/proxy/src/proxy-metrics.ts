/**
 * The proxy's metrics, through prom-client: counters of requests, leaks and retries, and a
 * histogram of the latency the proxy adds, in a registry of the proxy's own (or the host's, so
 * one `/metrics` serves both).
 */
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { createMarkupOutcomes, createModelLabels, type RecoveryOutcome } from "@tool-rescue/recovery/adapter"
import { Counter, Histogram, Registry } from "prom-client"
import type { ProtocolName } from "./protocol.ts"

/**
 * How one leaked call ended: recovery's own outcome of the event that settled it
 * (`recoveryOutcome` of `@tool-rescue/recovery`, which its telemetry counts too): `recovered`,
 * `repeated`, `truncated`, `persist-failed`, `aborted`, `provider-error`, or — for markup kept as
 * text — `not-offered`, `in-reasoning`.
 *
 * @example
 * ```ts
 * import type { LeakOutcome } from "@tool-rescue/proxy"
 *
 * const good: LeakOutcome = "recovered"
 * ```
 */
export type LeakOutcome = RecoveryOutcome

/**
 * Where the proxy adds latency: `request` — from a recovered request's arrival to its upstream
 * request (reading and checking the body, planning the turn); `recovery` — from the decision to
 * retry a leak to the end of the turn (what the retry cost the client).
 *
 * @example
 * ```ts
 * import type { AddedLatencyPhase } from "@tool-rescue/proxy"
 *
 * const phase: AddedLatencyPhase = "recovery"
 * ```
 */
export type AddedLatencyPhase = "request" | "recovery"

/**
 * The proxy's metrics.
 *
 * @example
 * ```ts
 * import { createProxy } from "@tool-rescue/proxy"
 *
 * const proxy = createProxy({ upstream: "http://127.0.0.1:11434/v1" })
 * console.log(await proxy.metrics.render()) // # HELP tool_rescue_proxy_requests_total …
 * ```
 */
export interface ProxyMetrics {
  /**
   * Counts one request: `recovered` (tools offered: recovery applied) or `passthrough`, by the
   * model it names (`undefined`: none, or a route the proxy does not read).
   */
  request(protocol: ProtocolName | "other", mode: "recovered" | "passthrough", model?: string): void
  /** Observes latency the proxy added, in seconds. */
  added(protocol: ProtocolName, phase: AddedLatencyPhase, seconds: number): void
  /** Counts an upstream request that failed: `timeout`, `unreachable` or `cut`. */
  upstreamFailure(kind: "timeout" | "unreachable" | "cut" | "malformed"): void
  /** Counts a `persistFailed` hook (the failed log's write) that failed. */
  persistFailure(protocol: ProtocolName): void
  /** An `onEvent` listener for one recovered request of `model`. */
  turn(protocol: ProtocolName, model?: string): (event: RecoveryEvent) => void
  /** The registry's metrics in the Prometheus text format. */
  render(): Promise<string>
  /** The `content-type` of {@link ProxyMetrics.render}'s text. */
  readonly contentType: string
}

/**
 * Options of {@link createProxyMetrics}.
 *
 * @example
 * ```ts
 * import type { ProxyMetricsOptions } from "@tool-rescue/proxy"
 * import { Registry } from "prom-client"
 *
 * const options: ProxyMetricsOptions = { registry: new Registry() }
 * ```
 */
export interface ProxyMetricsOptions {
  /**
   * The prom-client registry the metrics are registered in (your app's, to serve them with its
   * own). @defaultValue a new registry of the proxy's own
   */
  readonly registry?: Registry
  /**
   * Distinct model names the `model` label takes; later ones are counted as `other` (requests
   * name the model, so a client could otherwise add series without end). @defaultValue 100
   */
  readonly maxModels?: number
}

/** Sub-millisecond to a minute: the request phase is a fraction of a millisecond, a retry seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
]

/**
 * Creates the metrics: requests by protocol, mode and model, leaked calls by protocol, format,
 * outcome and model (a leak rate per model is one over the other's `recovered` mode), retries
 * by protocol, persistFailed failures by protocol, upstream failures by kind, and the added
 * latency by protocol and phase.
 *
 * @example
 * ```ts
 * import { createProxyMetrics } from "@tool-rescue/proxy"
 *
 * const metrics = createProxyMetrics()
 * metrics.request("chat", "passthrough")
 * ;(await metrics.render()).includes('tool_rescue_proxy_requests_total{protocol="chat",mode="passthrough",model="unknown"} 1') // true
 * ```
 */
export function createProxyMetrics(options: ProxyMetricsOptions = {}): ProxyMetrics {
  const registry = options.registry ?? new Registry()
  const registers = [registry]
  const requests = new Counter({
    name: "tool_rescue_proxy_requests_total",
    help: "Requests by protocol, whether recovery applied (tools offered) and model.",
    labelNames: ["protocol", "mode", "model"] as const,
    registers,
  })
  const leaks = new Counter({
    name: "tool_rescue_proxy_leaks_total",
    help: "Tool calls written as text, by format, outcome and model.",
    labelNames: ["protocol", "format", "outcome", "model"] as const,
    registers,
  })
  const retries = new Counter({
    name: "tool_rescue_proxy_retries_total",
    help: "Retries sent upstream after a leak.",
    labelNames: ["protocol"] as const,
    registers,
  })
  const persistFailures = new Counter({
    name: "tool_rescue_proxy_persist_failures_total",
    help: "Malformed responses the persistFailed hook (the failed log) could not store.",
    labelNames: ["protocol"] as const,
    registers,
  })
  const upstreamFailures = new Counter({
    name: "tool_rescue_proxy_upstream_failures_total",
    help: "Upstream requests that timed out, could not connect, or were cut after the headers.",
    labelNames: ["kind"] as const,
    registers,
  })
  const latency = new Histogram({
    name: "tool_rescue_proxy_added_latency_seconds",
    help: "Latency the proxy added: before the upstream request (request), and for a retry (recovery).",
    labelNames: ["protocol", "phase"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  })

  const modelLabel = createModelLabels(options.maxModels)
  return {
    request: (protocol, mode, model) => requests.inc({ protocol, mode, model: modelLabel(model) }),
    persistFailure: (protocol) => persistFailures.inc({ protocol }),
    added: (protocol, phase, seconds) => latency.observe({ protocol, phase }, seconds),
    upstreamFailure: (kind) => upstreamFailures.inc({ kind }),
    turn(protocol, name) {
      const model = modelLabel(name)
      // Each markup counted once with what recovery made of it: recovery's own rule, the one its
      // `tool_rescue.outcomes` counter counts by (an announced call's retry is no leak).
      const outcomes = createMarkupOutcomes((format, outcome) =>
        leaks.inc({ protocol, format, outcome, model }),
      )
      let retrying: number | undefined
      return (event) => {
        if (event.type === "recovery-started") {
          retries.inc({ protocol })
          retrying ??= performance.now()
        }
        if (
          retrying !== undefined &&
          (event.type === "recovery-succeeded" || event.type === "recovery-failed")
        ) {
          latency.observe({ protocol, phase: "recovery" }, (performance.now() - retrying) / 1000)
          retrying = undefined
        }
        outcomes.record(event)
      }
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  }
}
