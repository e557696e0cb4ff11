export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export { createFailedLog } from "./failed-log.ts"
export type { AllowedHosts } from "./request-guard.ts"
export { type ProxyServer, type ProxyServerOptions, startProxyServer } from "./start-proxy-server.ts"
