import type { FailedResponse } from "@tool-rescue/recovery"
import type { ProtocolName } from "./protocol.ts"

/**
 * What the proxy's `persistFailed` hook receives: the library's {@link FailedResponse} (round,
 * rounds, outcome, format, offered tools, model, text, markup) and the route it came through.
 *
 * @example
 * ```ts
 * import type { ProxyFailedResponse } from "@tool-rescue/proxy"
 *
 * const persistFailed = async (failed: ProxyFailedResponse) => {
 *   console.warn(`${failed.protocol} ${failed.model ?? "?"}: ${failed.format} leak, ${failed.outcome}`)
 * }
 * ```
 */
export interface ProxyFailedResponse extends FailedResponse {
  readonly protocol: ProtocolName
  /** The recovered route's path, e.g. `/v1/chat/completions`. */
  readonly route: string
}
