/**
 * The row type of the proxy's protocol table (`protocols.ts`): a route's name (its metrics label)
 * and its wire protocol from `@tool-rescue/wire` (request fields, parts both ways, the splice,
 * SSE framing, error shape), with the proxy's turn mark: the recoveries written into the ids of
 * a recovered response's tool calls ({@link markId}), read back from the history a client sends
 * ({@link callMark}) and taken off before a request goes upstream ({@link unmarkId}), all in
 * `turn-mark.ts`. Nothing here depends on which protocol a row is.
 */

import type { TurnRequest } from "@tool-rescue/recovery/adapter"
import type { AnyWireProtocol, JsonObject, WireError } from "@tool-rescue/wire"
import { callMark, markId, unmarkId } from "./turn-mark.ts"

/**
 * The protocol of a recovered route.
 *
 * @example
 * ```ts
 * import type { ProtocolName } from "@tool-rescue/proxy"
 *
 * const label: ProtocolName = "messages" // Anthropic Messages
 * ```
 */
export type ProtocolName = "chat" | "responses" | "messages"

/**
 * An error the proxy itself answers with, in the protocol's own shape (`@tool-rescue/wire`'s
 * `WireError`).
 *
 * @example
 * ```ts
 * import type { ProtocolError } from "@tool-rescue/proxy"
 *
 * const error: ProtocolError = { type: "tool_call_recovery_error", code: "repeated-markup", message: "…" }
 * ```
 */
export type ProtocolError = WireError

/** One row of the protocol table. */
export interface Protocol {
  readonly name: ProtocolName
  /** Its route: the path clients use under their `/v1` base URL (the failed log's and the logs' `route`). */
  readonly route: string
  readonly wire: AnyWireProtocol
  /**
   * The request as recovery's `planTurn` reads it: tools, tool choice, the protocol's own
   * reasons, and the recoveries the turn already made — the largest mark ({@link callMark}) on a
   * tool-call id after the message that started the turn: the ids of a recovered response come
   * back in every later request of the agent's turn, so the proxy keeps no state between requests.
   */
  turnRequest(body: JsonObject): TurnRequest
  /** `item` with the ids of its tool calls marked with `recoveries` ({@link markId}). */
  markCalls(item: unknown, recoveries: number): unknown
  /**
   * The request as it goes upstream: every tool-call id of its history without the proxy's mark
   * ({@link unmarkId}); `body` itself when it carries none.
   */
  unmarked(body: JsonObject): JsonObject
}

/** The row of the protocol table for `wire`, served as `name` at `route`. */
export function protocolRow(name: ProtocolName, route: string, wire: AnyWireProtocol): Protocol {
  return {
    name,
    route,
    wire,
    turnRequest: (body) => wire.request(body, callMark),
    markCalls: (item, recoveries) => wire.markCalls(item, (id) => markId(id, recoveries)),
    unmarked: (body) => wire.mapHistoryCalls(body, unmarkId),
  }
}
