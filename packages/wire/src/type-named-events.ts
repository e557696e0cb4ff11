import { eventType } from "./json.ts"
import type { AnyWireProtocol } from "./wire-protocol.ts"

/**
 * The SSE framing of the protocols that name their events by type (Responses, Anthropic
 * Messages): an event's `event:` name is its `type`, the stream ends without a `[DONE]`
 * sentinel, and an `error` event (by name or by type) reports an error. One home, so the two
 * protocols cannot drift apart.
 */
export const typeNamedEvents: Pick<AnyWireProtocol, "eventName" | "sentinel" | "isStreamError"> = {
  eventName: eventType,
  sentinel: false,
  isStreamError: (event, name) => name === "error" || eventType(event) === "error",
}
