export { basicCredentials } from "./basic-credentials.ts"
export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export {
  type FailedRecord,
  type FailedRecordField,
  type FailedRecordOptions,
  type ParsedFailedRecord,
  type ParsedPartialFailedRecord,
  type PartialFailedRecord,
  parseFailedRecord,
} from "./failed-record.ts"
export { type MetricSample, parseMetricSamples } from "./parse-metric-samples.ts"
export type { ProtocolError, ProtocolName } from "./protocol.ts"
export type { ProxyFailedResponse } from "./proxy-failed-response.ts"
export type { ProxyLogger } from "./proxy-logger.ts"
export {
  type AddedLatencyPhase,
  createProxyMetrics,
  type LeakOutcome,
  type ProxyMetrics,
  type ProxyMetricsOptions,
} from "./proxy-metrics.ts"
export type { AllowedHosts } from "./request-guard.ts"
