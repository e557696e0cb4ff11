/**
 * Where the proxy writes its lines: pino's interface (a pino logger is one), so an embedder
 * passes the logger of its own app. The proxy calls `info`, `warn` and `error` with the line's
 * fields first and its message second, and never passes a prompt, an answer or a request header.
 *
 * @example
 * ```ts
 * import type { ProxyLogger } from "@tool-rescue/proxy"
 *
 * const logger: ProxyLogger = {
 *   info: (fields, message) => console.log(message, fields),
 *   warn: (fields, message) => console.warn(message, fields),
 *   error: (fields, message) => console.error(message, fields),
 * }
 * ```
 */
export interface ProxyLogger {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}
