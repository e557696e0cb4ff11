/**
 * The proxy's counters in the Prometheus text exposition format (version 0.0.4). A minimal
 * counter set of our own rather than prom-client: prom-client needs Node built-ins (`cluster`,
 * `v8`, `perf_hooks`), and the proxy's handler runs on any web-standard runtime.
 */
import { type RecoveryEvent, type RecoveryOutcome, recoveryOutcome } from "@tool-rescue/recovery"
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
 * The proxy's counters.
 *
 * @example
 * ```ts
 * import { createProxy } from "@tool-rescue/proxy"
 *
 * const proxy = createProxy({ upstream: "http://127.0.0.1:11434/v1" })
 * console.log(proxy.metrics.render()) // # HELP tool_rescue_proxy_requests_total …
 * ```
 */
export interface ProxyMetrics {
  /** Counts one request: `recovered` (recovery applied) or `passthrough`. */
  request(protocol: ProtocolName | "other", mode: "recovered" | "passthrough"): void
  /** Counts an upstream request that failed: `timeout`, `unreachable` or `cut`. */
  upstreamFailure(kind: "timeout" | "unreachable" | "cut"): void
  /** An `onEvent` listener for one recovered request. */
  turn(protocol: ProtocolName): (event: RecoveryEvent) => void
  /** The counters in Prometheus text format. */
  render(): string
}

interface Counter {
  readonly name: string
  readonly help: string
  readonly labels: readonly string[]
  /** Keyed by the label values joined with NUL (a character no label value holds). */
  readonly values: Map<string, number>
}

function counter(name: string, help: string, labels: readonly string[]): Counter {
  return { name, help, labels, values: new Map() }
}

function add(c: Counter, values: readonly string[]): void {
  const key = values.join("\u0000")
  c.values.set(key, (c.values.get(key) ?? 0) + 1)
}

/** Label value escaping of the text format: backslash, double quote and line feed. */
function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")
}

function renderCounter(c: Counter): string {
  const lines = [`# HELP ${c.name} ${c.help}`, `# TYPE ${c.name} counter`]
  for (const [key, value] of c.values) {
    const labels = key
      .split("\u0000")
      .map((v, i) => `${c.labels[i]}="${escapeLabel(v)}"`)
      .join(",")
    lines.push(`${c.name}{${labels}} ${value}`)
  }
  return lines.join("\n")
}

/**
 * Creates the counters: requests by protocol and mode, leaked calls by protocol, format and
 * outcome, retries by protocol, and upstream failures by kind.
 *
 * @example
 * ```ts
 * import { createProxyMetrics } from "@tool-rescue/proxy"
 *
 * const metrics = createProxyMetrics()
 * metrics.request("chat", "passthrough")
 * metrics.render().includes('tool_rescue_proxy_requests_total{protocol="chat",mode="passthrough"} 1') // true
 * ```
 */
export function createProxyMetrics(): ProxyMetrics {
  const requests = counter(
    "tool_rescue_proxy_requests_total",
    "Requests by protocol and whether recovery applied.",
    ["protocol", "mode"],
  )
  const leaks = counter(
    "tool_rescue_proxy_leaks_total",
    "Tool calls written as text, by format and outcome.",
    ["protocol", "format", "outcome"],
  )
  const retries = counter("tool_rescue_proxy_retries_total", "Retries sent upstream after a leak.", [
    "protocol",
  ])
  const upstreamFailures = counter(
    "tool_rescue_proxy_upstream_failures_total",
    "Upstream requests that timed out, could not connect, or were cut after the headers.",
    ["kind"],
  )

  return {
    request: (protocol, mode) => add(requests, [protocol, mode]),
    upstreamFailure: (kind) => add(upstreamFailures, [kind]),
    turn(protocol) {
      // Formats of recoverable markup whose outcome the turn's end decides.
      const pending: string[] = []
      const settle = (outcome: RecoveryOutcome) => {
        for (const format of pending) add(leaks, [protocol, format, outcome])
        pending.length = 0
      }
      return (event) => {
        if (event.type === "recovery-started") add(retries, [protocol])
        if (event.type === "markup-detected" && event.reason === "recoverable") {
          pending.push(event.markup.format)
          return
        }
        const outcome = recoveryOutcome(event)
        if (outcome === undefined) return
        if (event.type === "markup-detected") add(leaks, [protocol, event.markup.format, outcome])
        else settle(outcome)
      }
    },
    render: () => `${[requests, leaks, retries, upstreamFailures].map(renderCounter).join("\n")}\n`,
  }
}
