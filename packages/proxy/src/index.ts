export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export type { ProtocolError, ProtocolName } from "./protocol.ts"
export {
  type AddedLatencyPhase,
  createProxyMetrics,
  type LeakOutcome,
  type ProxyMetrics,
  type ProxyMetricsOptions,
} from "./proxy-metrics.ts"
export type { AllowedHosts } from "./request-guard.ts"
