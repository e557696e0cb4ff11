/**
 * The three protocols the proxy recovers, as data: adding a protocol is adding a row (see
 * {@link Protocol}).
 */
import { chatProtocol } from "./chat-protocol.ts"
import { messagesProtocol } from "./messages-protocol.ts"
import type { Protocol, ProtocolName } from "./protocol.ts"
import { responsesProtocol } from "./responses-protocol.ts"

/** The recovered routes, by protocol. */
export const protocols: Readonly<Record<ProtocolName, Protocol>> = {
  chat: chatProtocol,
  responses: responsesProtocol,
  messages: messagesProtocol,
}
