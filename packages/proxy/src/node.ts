export { createProxy, type ProxyOptions, type ToolRescueProxy } from "./create-proxy.ts"
export { createFailedLog } from "./failed-log.ts"
export { type ProxyServer, type ProxyServerOptions, startProxyServer } from "./start-proxy-server.ts"
