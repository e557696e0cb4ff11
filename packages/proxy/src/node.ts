export { basicCredentials } from "./basic-credentials.ts"
export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export { createFailedLog, type FailedLog, openFailedLog } from "./failed-log.ts"
export {
  type FailedRecord,
  type FailedRecordField,
  type FailedRecordOptions,
  type ParsedFailedRecord,
  type ParsedPartialFailedRecord,
  type PartialFailedRecord,
  parseFailedRecord,
} from "./failed-record.ts"
export type { ProxyFailedResponse } from "./proxy-failed-response.ts"
export type { ProxyLogger } from "./proxy-logger.ts"
export type { AllowedHosts } from "./request-guard.ts"
export { type ProxyServer, type ProxyServerOptions, startProxyServer } from "./start-proxy-server.ts"
