export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export type { ProtocolError, ProtocolName } from "./protocol.ts"
export { createProxyMetrics, type LeakOutcome, type ProxyMetrics } from "./proxy-metrics.ts"
