/**
 * The three protocols the proxy recovers, as data: adding a protocol is a module of
 * `@tool-rescue/wire` plus a row here (and its route in `create-proxy.ts`).
 */
import { chatCompletions, messages, responses } from "@tool-rescue/wire"
import { type Protocol, type ProtocolName, protocolRow } from "./protocol.ts"

/** The recovered routes, by protocol. */
export const protocols: Readonly<Record<ProtocolName, Protocol>> = {
  // Each protocol is typed over its own JSON shapes; the proxy hands it whatever the upstream
  // sent, which its readers check field by field.
  chat: protocolRow("chat", "/v1/chat/completions", chatCompletions),
  responses: protocolRow("responses", "/v1/responses", responses),
  messages: protocolRow("messages", "/v1/messages", messages),
}
