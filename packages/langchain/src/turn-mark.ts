/**
 * The turn mark in LangChain: a recovered response carries, in its `response_metadata`, how
 * many recoveries its user turn had made. The response joins the history (an agent's state, the
 * caller's message list), so the next model call of the turn reads the mark back: no state is
 * kept between model calls, and an agent invocation's model calls share one budget. Providers
 * never send `response_metadata` back to the model.
 */
import type { BaseMessage } from "@langchain/core/messages"
import { turnMarkOf, turnRecoveries, withTurnMark } from "@tool-rescue/recovery/adapter"

/** `metadata` with the turn mark: the turn had made `recoveries` recoveries by this response. */
export function markTurn(
  metadata: Readonly<Record<string, unknown>> | undefined,
  recoveries: number,
): Record<string, unknown> {
  return withTurnMark({ ...metadata }, recoveries)
}

/** Recoveries the current user turn already made: the marks after the last human message. */
export function readTurnMark(messages: readonly BaseMessage[]): number {
  return turnRecoveries(messages, {
    startsTurn: (message) => message.type === "human",
    recoveries: (message) => (message.type === "ai" ? turnMarkOf(message.response_metadata) : 0),
  })
}
