/**
 * The turn mark: a recovered response carries, in its `response_metadata`, how many recoveries
 * its user turn had made. The response joins the history (an agent's state, the caller's
 * message list), so the next model call of the turn reads the mark back with `recovery`'s
 * `turnRecoveries`: no state is kept between model calls, and an agent invocation's model calls
 * share one budget. Providers never send `response_metadata` back to the model.
 */
import type { BaseMessage } from "@langchain/core/messages"
import { turnRecoveries } from "@tool-rescue/recovery/adapter"

/** The `response_metadata` key of the mark. */
export const MARK_KEY = "toolRescue"

function markOf(message: BaseMessage): number {
  if (message.type !== "ai") return 0
  const mark: unknown = message.response_metadata?.[MARK_KEY]
  if (typeof mark !== "object" || mark === null) return 0
  const recoveries = (mark as Record<string, unknown>).recoveries
  return typeof recoveries === "number" ? recoveries : 0
}

/** Recoveries the current user turn already made: the marks after the last human message. */
export function historyRecoveries(messages: readonly BaseMessage[]): number {
  return turnRecoveries(messages, { startsTurn: (message) => message.type === "human", recoveries: markOf })
}

/** `metadata` with the mark: the turn had made `recoveries` recoveries by this response. */
export function withMark(
  metadata: Readonly<Record<string, unknown>> | undefined,
  recoveries: number,
): Record<string, unknown> {
  return { ...metadata, [MARK_KEY]: { recoveries } }
}
